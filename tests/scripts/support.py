"""Helpers of the script attack suite: the runners by name, local skills to attack, one run.

The sandbox runner needs bubblewrap. Where ``bwrap`` is not installed, its tests are skipped with
that reason (CI installs it, so there they run); every other test runs everywhere.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core.tools import ProcessRunner, SandboxRunner, ScriptPolicy, SkillTools
from skills_core.tools._policy import ScriptRunner

LOCAL_RUNNERS = ["sandbox", "process"]
ALL_RUNNERS = [*LOCAL_RUNNERS, "adk"]
BWRAP_MISSING = (
    "bubblewrap (bwrap) is not installed, so the sandbox runner cannot be tested here: "
    "apt-get install bubblewrap (CI installs it)"
)


def make_runner(name: str) -> ScriptRunner:
    """The runner called ``name``; skips the test when it is the sandbox and bwrap is missing."""
    if name == "sandbox":
        if shutil.which("bwrap") is None:
            pytest.skip(BWRAP_MISSING)
        return SandboxRunner()
    if name == "process":
        return ProcessRunner()
    from google.adk.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor

    from skills_core.adk import CodeExecutorRunner

    return CodeExecutorRunner(UnsafeLocalCodeExecutor())


MARK = "import pathlib, sys\npathlib.Path(sys.argv[1]).write_text({!r})\nprint({!r})\n"
"""A script that writes its first text to the file its argument names and prints the second."""


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
