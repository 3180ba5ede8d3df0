"""`python -m skills_core.cli` as a user runs it: start-up imports, real exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.cli.conftest import BROKEN, GOOD
from tests.support.files import files_of

ROOT = Path(__file__).resolve().parents[2]


def skillfs(
    *args: str | Path, env: Mapping[str, str] | None = None, cwd: Path = ROOT, **options: Any
) -> subprocess.CompletedProcess[str]:
    """Run this checkout's CLI in a process of its own, in ``cwd``; ``options`` go to ``run``."""
    env = env if env is not None else os.environ
    path = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "skills_core.cli", *map(str, args)],
        check=False,
        cwd=cwd,
        env={**env, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        **options,
    )


# Runs the CLI as `python -m` does and records every module loaded by the time it exits.
_RECORD_MODULES = """
import atexit, json, runpy, sys
record = sys.argv.pop(1)
atexit.register(lambda: open(record, "w").write(json.dumps(sorted(sys.modules))))
runpy.run_module("skills_core.cli", run_name="__main__", alter_sys=True)
"""


def skillfs_modules(
    tmp_path: Path, *args: str | Path
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    record = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", _RECORD_MODULES, str(record), *map(str, args)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result, set(json.loads(record.read_text()))


def test_help_imports_neither_adk_nor_fsspec_nor_any_command(tmp_path: Path) -> None:
    result, modules = skillfs_modules(tmp_path, "--help")
    assert result.returncode == 0
    for command in ("list", "validate", "show", "prompt", "bundle", "new", "watch"):
        assert re.search(rf"^    {command} ", result.stdout, re.M), command
    assert "skills_core.cli._app" in modules
    unwanted = {
        module
        for module in modules
        if module.split(".")[0] == "fsspec"
        or module.startswith(
            ("google.adk", "skills_core.cli._commands.", "skills_core._catalog.catalog")
        )
    }
    assert unwanted == set()


def test_command_help_imports_only_that_command(tmp_path: Path) -> None:
    result, modules = skillfs_modules(tmp_path, "list", "--help")
    assert result.returncode == 0
    assert "--json" in result.stdout
    commands = {module for module in modules if module.startswith("skills_core.cli._commands.")}
    assert commands == {"skills_core.cli._commands.reading"}
    assert not any(module.startswith("google.adk") for module in modules)


def test_listing_a_local_folder_never_imports_google_adk(tmp_path: Path) -> None:
    result, modules = skillfs_modules(tmp_path, "list")
    assert result.returncode == 0
    assert "csv-insights" in result.stdout
    assert not any(module.startswith("google") for module in modules)


def test_exit_codes_and_streams_of_a_real_process(mixed_root: Path, tmp_path: Path) -> None:
    validated = skillfs("validate", mixed_root, "--json")
    assert validated.returncode == 1
    assert json.loads(validated.stdout)["valid"] is False
    for name in BROKEN:
        assert f"error: {mixed_root / name / 'SKILL.md'}: " in validated.stderr

    missing = skillfs("show", tmp_path / "missing", "anything")
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert missing.stderr.startswith(f"error: {tmp_path / 'missing'}: ")
    assert "Traceback" not in missing.stderr

    assert skillfs("validate", "--bogus-flag").returncode == 2
    assert skillfs("new", "fresh", "--dir", tmp_path).returncode == 0
    assert skillfs("validate", tmp_path / "fresh").returncode == 0


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "skills_core.cli", "list", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    process.stdout.close()  # like `skillfs list --json | head -0`
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 141
    assert stderr == ""


def test_version() -> None:
    result = skillfs("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("skillfs ")


def test_cache_info_writes_nothing(tmp_path: Path) -> None:
    root, cache = tmp_path / "skills", tmp_path / "cache"
    for name, text in GOOD.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    env = {**os.environ, "SKILLFS_CACHE_DIR": str(cache)}
    assert skillfs("list", root, env=env).returncode == 0
    (cache / "catalogs.sqlite3").chmod(0o444)

    before = files_of(cache)
    assert list(before) == ["catalogs.sqlite3"]
    info = json.loads(skillfs("cache", "info", "--json", env=env).stdout)
    rows = [(row["judged"], row["skills"], row["source"]) for row in info["catalogs"]]
    assert rows == [("lenient", 3, str(root))]
    assert files_of(cache) == before  # no -wal, -shm or -journal file; same bytes, time and mode
