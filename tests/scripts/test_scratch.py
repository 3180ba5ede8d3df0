"""What a script may fill: scratch, ``/dev/shm`` and memory are capped; scratch dies with it."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skills_core import _codes as codes
from skills_core.tools import ProcessRunner, SandboxRunner, ScriptPolicy
from skills_core.tools._runners.sandbox import default_runner, sandbox_works
from tests.scripts import attacks
from tests.scripts.processes import appeared, survivors
from tests.scripts.support import make_runner, run_script, write_skill

ROOT = Path(__file__).resolve().parents[2]
CAP = 1024 * 1024
FULL = {"sandbox": "No space left on device", "process": "File too large"}


async def test_a_script_cannot_write_past_its_scratch_cap(
    skills_root: Path, runner_name: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/fill.py": attacks.FILL})
    runner = make_runner(runner_name)
    result = await run_script(
        skills_root,
        runner,
        "attack",
        "scripts/fill.py",
        ["fill", str(2 * CAP)],
        max_scratch_bytes=CAP,
    )
    assert result["exit_code"] == 1, result
    assert FULL[runner_name] in result["stderr"]
    assert int(result["stdout"].split()[-1]) <= CAP  # what reached the disk (or memory)


async def test_dev_shm_is_capped_in_the_sandbox(skills_root: Path) -> None:
    write_skill(skills_root, "attack", {"scripts/fill.py": attacks.FILL})
    runner = make_runner("sandbox")
    result = await run_script(
        skills_root,
        runner,
        "attack",
        "scripts/fill.py",
        ["/dev/shm/fill", str(2 * CAP)],
        max_scratch_bytes=CAP,
    )
    assert result["exit_code"] == 1, result
    assert "No space left on device" in result["stderr"]
    assert int(result["stdout"].split()[-1]) <= CAP


@pytest.mark.parametrize("limit", ["max_scratch_bytes", "max_memory_bytes"])
def test_the_caps_must_be_positive(limit: str) -> None:
    with pytest.raises(ValueError, match=f"{limit} must be positive"):
        ScriptPolicy(**{limit: 0})


async def test_max_memory_bytes_limits_what_a_script_may_allocate(
    skills_root: Path, runner_name: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/allocate.py": attacks.ALLOCATE})
    runner = make_runner(runner_name)
    verdicts = []
    for size in (16 * 1024 * 1024, 512 * 1024 * 1024):
        result = await run_script(
            skills_root,
            runner,
            "attack",
            "scripts/allocate.py",
            [str(size)],
            max_memory_bytes=256 * 1024 * 1024,
        )
        verdicts.append(result["stdout"].strip())
    assert verdicts == ["allocated", "refused MemoryError"]


OLD_BWRAP = """\
#!/bin/sh
case "$*" in *--size*) echo "bwrap: Unknown option --size" >&2; exit 1;; esac
echo "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]"
"""
"""A stand-in for bubblewrap before 0.8.0: no ``--size``, everything else accepted."""


@pytest.fixture
def old_bwrap(tmp_path: Path) -> Path:
    folder = tmp_path / "old-bin"
    folder.mkdir()
    (folder / "bwrap").write_text(OLD_BWRAP)
    (folder / "bwrap").chmod(0o755)
    return folder / "bwrap"


async def test_a_bubblewrap_without_size_is_refused_with_what_to_do(
    skills_root: Path, old_bwrap: Path
) -> None:
    write_skill(skills_root, "attack", {"scripts/ok.sh": "echo ok\n"})
    runner = SandboxRunner(bwrap=str(old_bwrap))
    result = await run_script(skills_root, runner, "attack", "scripts/ok.sh", [])
    assert result["error_code"] == codes.RUNNER_UNAVAILABLE
    assert "--size option" in result["error"]
    assert "bubblewrap 0.8.0" in result["error"]


async def test_without_size_the_default_is_the_process_runner(
    old_bwrap: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(old_bwrap.parent))
    sandbox_works.cache_clear()
    try:
        runner = await default_runner()
    finally:
        sandbox_works.cache_clear()
    assert isinstance(runner, ProcessRunner)
    assert "older than 0.8.0" in caplog.text


def agent(runner_name: str, skills_root: Path, *script: str) -> list[str]:
    """The command of an agent process (tests.scripts.driver) running one script."""
    return [sys.executable, "-m", "tests.scripts.driver", runner_name, str(skills_root), *script]


def scratch_in(tmp: Path) -> list[str]:
    return sorted(entry.name for entry in tmp.iterdir())


def test_a_killed_agents_scratch_is_gone_after_the_next_start(
    skills_root: Path, tmp_path: Path, runner_name: str, marker: str
) -> None:
    make_runner(runner_name)  # skips the sandbox without bwrap
    write_skill(
        skills_root,
        "attack",
        {"scripts/leave.sh": attacks.LEAVE_SCRATCH, "scripts/ok.sh": "echo ok\n"},
    )
    tmp = tmp_path / "agent-tmp"
    tmp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
    command = agent(runner_name, skills_root, "attack", "scripts/leave.sh", marker)
    killed = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    try:
        assert asyncio.run(appeared(f"{marker}-waiting"))  # the agent's own holds only marker
    finally:
        killed.kill()  # SIGKILL: the agent cannot delete its scratch folder
        killed.wait()
    assert asyncio.run(survivors(marker)) == []
    left = scratch_in(tmp)
    # The sandbox's scratch is a tmpfs that died with it; the process runner's is a folder.
    assert len(left) == (1 if runner_name == "process" else 0), left
    # Folders the next agent must keep: a live pid's, a locked one's, one not of the pattern.
    kept = [f"skillfs-scratch-{os.getpid()}-live", f"skillfs-scratch-{killed.pid}-locked"]
    kept.append("skillfs-scratch-unrelated")
    for name in kept:
        (tmp / name).mkdir()
    lock = os.open(tmp / kept[1], os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        command = agent(runner_name, skills_root, "attack", "scripts/ok.sh")
        completed = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
        )
    finally:
        os.close(lock)
    assert json.loads(completed.stdout)["stdout"] == "ok\n"
    assert scratch_in(tmp) == sorted(kept)
