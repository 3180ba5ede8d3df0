"""Fixtures for the script attack suite: each runner, a skill to attack, a process-table marker.

The sandbox runner needs bubblewrap. Where ``bwrap`` is not installed, its tests are skipped with
that reason (CI installs it, so there they run); every other test runs everywhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core.tools import ProcessRunner, SandboxRunner, ScriptPolicy, ScriptRunner, SkillTools
from tests.scripts.processes import alive_with

LOCAL_RUNNERS = ["sandbox", "process"]
ALL_RUNNERS = [*LOCAL_RUNNERS, "adk"]
BWRAP_MISSING = (
    "bubblewrap (bwrap) is not installed, so the sandbox runner cannot be tested here: "
    "apt-get install bubblewrap (CI installs it)"
)


def make_runner(
    name: str, *, network: bool = False, read_only: tuple[str, ...] = ()
) -> ScriptRunner:
    """The runner called ``name``; skips the test when it is the sandbox and bwrap is missing."""
    if name == "sandbox":
        if shutil.which("bwrap") is None:
            pytest.skip(BWRAP_MISSING)
        return SandboxRunner(network=network, read_only=read_only)
    if name == "process":
        return ProcessRunner()
    from google.adk.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor

    from skills_core.adk import CodeExecutorRunner

    return CodeExecutorRunner(UnsafeLocalCodeExecutor())


@pytest.fixture(params=LOCAL_RUNNERS)
def runner_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def marker() -> Iterator[str]:
    """A word the attacks put in their processes' command lines; survivors are killed after."""
    word = f"skillfs-attack-{uuid.uuid4().hex}"
    yield word
    for pid in alive_with(word):
        os.kill(pid, signal.SIGKILL)


def write_skill(root: Path, name: str, files: Mapping[str, str]) -> Path:
    """A local skill folder; files under ``scripts/`` are executable."""
    folder = root / name
    (folder / "SKILL.md").parent.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Scripts to run.\n---\nRun.\n"
    )
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(0o755 if path.startswith("scripts/") else 0o644)
    return folder


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    return tmp_path / "skills"


async def run_script(
    root: Path, runner: ScriptRunner, skill: str, script: str, args: list[str], **policy: Any
) -> dict[str, Any]:
    """Run one script of the local skills under ``root`` through SkillTools."""
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=runner, **policy))
    try:
        return await tools.run_skill_script(skill, script, args)
    finally:
        await tools.close()
