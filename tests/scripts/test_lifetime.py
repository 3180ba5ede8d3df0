"""No process outlives a script's call, under every local runner: the process table says so.

Each attack leaves processes whose command line holds a unique marker; after the call the
test reads /proc for that marker. Exit codes alone would not show a daemon that escaped.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from skills_core import _codes as codes
from tests.scripts import attacks
from tests.scripts.processes import appeared, survivors
from tests.scripts.support import make_runner, run_script, write_skill

ROOT = Path(__file__).resolve().parents[2]


async def test_setsid_double_fork_leaves_nothing(
    skills_root: Path, runner_name: str, marker: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/daemon.py": attacks.DOUBLE_FORK})
    runner = make_runner(runner_name)
    result = await run_script(skills_root, runner, "attack", "scripts/daemon.py", [marker])
    assert result["exit_code"] == 0, result
    assert result["stdout"] == "parent done\n"
    assert await survivors(marker) == []


async def test_background_job_holding_the_pipes_returns_at_once_with_its_exit_code(
    skills_root: Path, runner_name: str, marker: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/job.sh": attacks.BACKGROUND_JOB})
    runner = make_runner(runner_name)
    # Waiting for the background job's end of the pipes would hit the 120 s limit instead.
    result = await run_script(
        skills_root, runner, "attack", "scripts/job.sh", [marker], timeout=120
    )
    assert "error_code" not in result, result
    assert (result["exit_code"], result["stdout"]) == (3, "started\n")
    assert await survivors(marker) == []


async def test_term_ignoring_loops_are_killed_at_the_time_limit(
    skills_root: Path, runner_name: str, marker: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/stubborn.sh": attacks.TERM_IGNORING})
    runner = make_runner(runner_name)
    result = await run_script(
        skills_root, runner, "attack", "scripts/stubborn.sh", [marker], timeout=1
    )
    assert result["error_code"] == codes.SCRIPT_TIMEOUT
    assert (result["exit_code"], result["stdout"]) == (-9, "looping\n")
    assert await survivors(marker) == []


async def test_fork_storms_are_bounded_and_cleared(
    skills_root: Path, runner_name: str, marker: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/storm.py": attacks.FORK_STORM})
    runner = make_runner(runner_name)
    result = await run_script(
        skills_root, runner, "attack", "scripts/storm.py", [marker], timeout=60, max_processes=24
    )
    assert result["exit_code"] == 0, result
    root = next(line for line in result["stdout"].splitlines() if line.startswith("root"))
    assert "blocked" in result["stdout"]  # some fork hit the limit
    assert int(root.split()[-1]) <= 24  # the storm never had more processes than allowed
    assert await survivors(marker) == []


async def test_a_sandboxed_script_cannot_lift_its_own_process_limit(skills_root: Path) -> None:
    write_skill(skills_root, "attack", {"scripts/lift.py": attacks.LIFT_LIMIT})
    runner = make_runner("sandbox")
    result = await run_script(
        skills_root, runner, "attack", "scripts/lift.py", [], max_processes=24
    )
    assert result["exit_code"] == 0, result
    assert "lifted" not in result["stdout"]  # as root, the pids cgroup's pids.max is not there


async def test_a_cancelled_call_leaves_nothing(
    skills_root: Path, runner_name: str, marker: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/stubborn.sh": attacks.TERM_IGNORING})
    runner = make_runner(runner_name)
    call = asyncio.create_task(
        run_script(skills_root, runner, "attack", "scripts/stubborn.sh", [marker], timeout=120)
    )
    assert await appeared(marker)
    call.cancel()
    await asyncio.wait([call])
    assert call.cancelled()
    assert await survivors(marker) == []


def test_nothing_outlives_an_agent_that_dies_mid_call(
    skills_root: Path, runner_name: str, marker: str
) -> None:
    make_runner(runner_name)  # skips the sandbox without bwrap
    write_skill(skills_root, "attack", {"scripts/stubborn.sh": attacks.TERM_IGNORING})
    driver = [sys.executable, "-m", "tests.scripts.driver", runner_name, str(skills_root)]
    agent = subprocess.Popen(
        [*driver, "attack", "scripts/stubborn.sh", marker],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
    )
    try:
        assert asyncio.run(appeared(marker))
    finally:
        agent.kill()  # SIGKILL: the agent gets no chance to clean up
        agent.wait()
    assert asyncio.run(survivors(marker)) == []
