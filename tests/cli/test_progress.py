"""Long work draws progress on a terminal (a real pty), and nothing when piped or --quiet."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import skill_md
from tests.cli.test_subprocess import ROOT, skillfs

SKILLS = 40


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for index in range(SKILLS):
        name = f"skill-{index:02d}"
        (tmp_path / "skills" / name / "references").mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(skill_md(name))
        (tmp_path / "skills" / name / "references" / "notes.md").write_text(f"# {name}\n")
    return tmp_path / "skills"


def on_a_terminal(*args: str | Path) -> tuple[int, str]:
    """Run skillfs with stderr on a pseudo-terminal (stdout piped): its code and stderr."""
    primary, secondary = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    with subprocess.Popen(
        [sys.executable, "-m", "skills_core.cli", *map(str, args)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=secondary,
    ) as process:
        os.close(secondary)
        seen = b""
        while True:
            try:
                chunk = os.read(primary, 1 << 16)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        code = process.wait(timeout=60)
    os.close(primary)
    return code, seen.decode()


def test_lock_counts_the_skills_it_hashes(root: Path, tmp_path: Path) -> None:
    code, terminal = on_a_terminal("lock", root, "-o", tmp_path / "skills.lock")
    assert code == 0
    assert f"] {SKILLS}/{SKILLS} skills hashed" in terminal
    assert terminal.startswith("\r[")  # redrawn in place
    assert terminal.endswith("\r\n")  # its line ended (a terminal writes \n as \r\n)

    quiet = on_a_terminal("lock", root, "-o", tmp_path / "again.lock", "--quiet")
    assert quiet == (0, "")
    piped = skillfs("lock", root, "-o", tmp_path / "piped.lock")
    assert (piped.returncode, piped.stderr) == (0, "")


def test_validate_counts_the_skill_md_files_it_reads_and_the_skills_it_checks(
    root: Path, tmp_path: Path
) -> None:
    bundle, lock = tmp_path / "skills.zip", tmp_path / "skills.lock"
    assert skillfs("bundle", root, "-o", bundle).returncode == 0
    assert skillfs("lock", root, "-o", lock).returncode == 0

    code, terminal = on_a_terminal("validate", bundle, "--no-cache")
    assert code == 0
    assert f"] {SKILLS}/{SKILLS} SKILL.md files read" in terminal

    code, terminal = on_a_terminal("validate", root, "--lock", lock)
    assert code == 0
    assert f"] {SKILLS}/{SKILLS} skills checked" in terminal

    assert on_a_terminal("validate", bundle, "--no-cache", "-q") == (0, "")
    piped = skillfs("validate", bundle, "--no-cache", "--lock", lock)
    assert (piped.returncode, piped.stderr) == (0, "")


@pytest.mark.parametrize("command", ["bundle", "publish"])
def test_bundle_and_publish_count_the_skills_they_pack(
    root: Path, tmp_path: Path, command: str
) -> None:
    out = tmp_path / ("out.zip" if command == "bundle" else "site")
    code, terminal = on_a_terminal(command, root, "-o", out)
    assert code == 0
    assert f"] {SKILLS}/{SKILLS} skills" in terminal
    assert on_a_terminal(command, root, "-o", out, "--quiet") == (0, "")
