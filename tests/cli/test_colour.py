"""Colour and emphasis on a terminal (errors, warnings, names), plain when piped or NO_COLOR."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import BROKEN, GOOD

ROOT = Path(__file__).resolve().parents[2]
SGR = re.compile(r"\x1b\[[0-9;]*m")
ERROR = "\x1b[1;31merror:\x1b[0m"
WARNING = "\x1b[1;33mwarning:\x1b[0m"


def on_terminal(*args: str | Path, env: dict[str, str] | None = None) -> str:
    """Run the CLI with stdout and stderr on a pseudo-terminal; return what it showed."""
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "skills_core.cli", *map(str, args)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=follower,
            env={**os.environ, "TERM": "xterm", "COLUMNS": "120", **(env or {})},
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the process is gone
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    finally:
        os.close(leader)
    return b"".join(chunks).decode()


@pytest.fixture(autouse=True)
def no_colour_preference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)


def test_a_terminal_gets_colour(mixed_root: Path) -> None:
    shown = on_terminal("validate", mixed_root)
    assert f"{ERROR} {mixed_root / 'Upper' / 'SKILL.md'}: " in shown
    assert f"{WARNING} {mixed_root / 'empty-body' / 'SKILL.md'}: " in shown
    assert "\x1b[1mSTATUS\x1b[0m" in shown
    assert "\x1b[32mok\x1b[0m" in shown
    assert "\x1b[1;31minvalid\x1b[0m" in shown
    for name in GOOD:
        assert f"\x1b[1;36m{name}\x1b[0m" in shown
    assert "\x1b[2m[NAME_INVALID]\x1b[0m" in shown
    # Nothing else: every escape sequence on screen is one of skillfs's own colours.
    assert "\x1b" not in SGR.sub("", shown)


def test_list_names_are_emphasised(mixed_root: Path) -> None:
    shown = on_terminal("list", mixed_root)
    assert "\x1b[1mNAME\x1b[0m" in shown
    assert "\x1b[1;36malpha\x1b[0m" in shown


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_color_or_a_dumb_terminal_turns_it_off(mixed_root: Path, env: dict[str, str]) -> None:
    shown = on_terminal("validate", mixed_root, env=env)
    assert "error: " in shown
    assert "\x1b" not in shown


def test_piped_output_is_plain(mixed_root: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "skills_core.cli", "validate", str(mixed_root)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TERM": "xterm"},
    )
    assert result.returncode == 1
    assert result.stderr.count("error: ") >= len(BROKEN)
    assert "\x1b" not in result.stdout + result.stderr
