"""`skillfs watch` in a real process: one line per reload, Ctrl-C ends it with exit 0."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli, skill_md

ROOT = Path(__file__).resolve().parents[2]
LINE_TIMEOUT = 20


class Watcher:
    """A running `skillfs watch` whose output lines are read off a thread, with timeouts."""

    def __init__(self, *args: str | Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "skills_core.cli", "watch", *map(str, args)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stdout: queue.Queue[str] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        for stream, lines in (
            (self.process.stdout, self.stdout),
            (self.process.stderr, self.stderr),
        ):
            threading.Thread(target=_pump, args=(stream, lines), daemon=True).start()

    def line(self, lines: queue.Queue[str] | None = None) -> str:
        return (lines or self.stdout).get(timeout=LINE_TIMEOUT)

    def line_containing(self, text: str) -> str:
        while text not in (line := self.line()):
            pass
        return line

    def interrupt(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=LINE_TIMEOUT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=LINE_TIMEOUT)


def _pump(stream: object, lines: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.put(line.rstrip("\n"))


@pytest.fixture
def watch() -> Iterator[type[Watcher]]:
    started: list[Watcher] = []

    class Started(Watcher):
        def __init__(self, *args: str | Path) -> None:
            super().__init__(*args)
            started.append(self)

    yield Started
    for watcher in started:
        watcher.stop()


def add_skill(root: Path, name: str, text: str) -> None:
    """Write a whole skill at once: build it in a hidden folder, then rename it into place."""
    staging = root / f".staging-{name}"
    staging.mkdir()
    (staging / "SKILL.md").write_text(text)
    staging.rename(root / name)


def test_watch_reports_added_broken_and_removed_skills(
    watch: type[Watcher], tmp_path: Path
) -> None:
    add_skill(tmp_path, "first", skill_md("first"))
    watcher = watch(tmp_path)
    assert watcher.line().endswith("] loaded: 1 skill, 0 errors, 0 warnings")

    add_skill(tmp_path, "second", skill_md("second"))
    assert watcher.line_containing("added second").endswith(": 2 skills, 0 errors, 0 warnings")

    (tmp_path / "first" / "SKILL.md").write_text("---\nname: first\n---\nx\n")
    assert "removed first" in watcher.line_containing("removed")
    error = watcher.line(watcher.stderr)
    assert error.startswith(f"error: {tmp_path / 'first' / 'SKILL.md'}: ")
    assert error.endswith("[DESCRIPTION_MISSING]")

    shutil.rmtree(tmp_path / "second")
    assert watcher.line_containing("removed second").endswith(": 0 skills, 1 error, 0 warnings")
    assert watcher.interrupt() == 0


def test_watch_serves_a_renamed_skill_under_its_new_name_with_warnings(
    watch: type[Watcher], tmp_path: Path
) -> None:
    """The case docs/cli.md shows: an uppercase name is a warning, not a removal."""
    add_skill(tmp_path, "pdf", skill_md("pdf"))
    watcher = watch(tmp_path)
    assert watcher.line().endswith("] loaded: 1 skill, 0 errors, 0 warnings")
    (tmp_path / "pdf" / "SKILL.md").write_text(skill_md("PDF"))
    line = watcher.line_containing("removed")
    assert line.endswith("] added PDF; removed pdf: 1 skill, 0 errors, 2 warnings")
    location = tmp_path / "pdf" / "SKILL.md"
    assert [watcher.line(watcher.stderr) for _ in range(2)] == [
        f"warning: {location}: 'name' 'PDF' must be lowercase [NAME_INVALID]",
        f"warning: {location}: 'name' 'PDF' must equal its folder name 'pdf' [NAME_MISMATCH]",
    ]
    assert watcher.interrupt() == 0


def test_watch_json_lines(watch: type[Watcher], tmp_path: Path) -> None:
    watcher = watch(tmp_path, "--json")
    first = json.loads(watcher.line())
    assert (first["ok"], first["added"], first["errors"]) == (True, [], [])
    add_skill(tmp_path, "late", skill_md("late"))
    report = json.loads(watcher.line())
    assert report["added"] == ["late"]
    assert report["fetched"] == 1
    assert watcher.interrupt() == 0


def test_watch_exits_2_when_the_source_cannot_be_listed(
    watch: type[Watcher], tmp_path: Path
) -> None:
    watcher = watch(tmp_path / "missing", "--interval", "0.1")
    assert watcher.process.wait(timeout=LINE_TIMEOUT) == 2
    error = watcher.line(watcher.stderr)
    assert error.startswith(f"error: {tmp_path / 'missing'}: ")
    assert error.endswith("[LIST_FAILED]")


def test_interval_must_be_positive(cli: RunCli) -> None:
    for bad in ("0", "-1", "soon"):
        result = cli("watch", "--interval", bad)
        assert result.code == 2
        assert "must be a positive number of seconds" in result.err
