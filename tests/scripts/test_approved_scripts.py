"""What runs is the content the user approved: a real process, a cloned project's skill.

The race is made deterministic with a Python audit hook: when the approval check opens the
approvals file, the hook swaps the script in the project's folder, between the check and
the run. Nothing of skillfs is replaced or patched.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from backends._digests import digest_of, files_digest
from backends._scopes import project_backend
from skills_core import SkillCatalog, TrustPolicy
from skills_core import _codes as codes
from skills_core._trust.approvals import ApprovalStore
from skills_core.tools import ProcessRunner, ScriptPolicy, SkillTools
from tests.scripts.support import MARK, write_skill

_ON_OPEN: dict[str, Callable[[], None]] = {}
"""What to do, once, when a path is next opened (by any thread)."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _ON_OPEN and isinstance(args[0], (str, os.PathLike)):
        action = _ON_OPEN.pop(os.fspath(args[0]), None)
        if action is not None:
            action()


sys.addaudithook(_audit)  # audit hooks cannot be removed: this one is idle unless armed


async def test_a_script_swapped_between_check_and_run_does_not_run(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    skills = project / ".agents" / "skills"
    folder = write_skill(skills, "marker", {"scripts/mark.py": MARK.format("approved", "ok")})
    store = await asyncio.to_thread(ApprovalStore, tmp_path / "cache")
    backend = await project_backend(project, home=tmp_path / "no-home")
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=ProcessRunner()))
    script, marker = folder / "scripts" / "mark.py", tmp_path / "ran"
    swapped = MARK.format("swapped", "swapped")
    try:
        await tools.script_approvals.approve("marker")
        await catalog.refresh()  # a listing that knows the approval still runs nothing in place
        _ON_OPEN[str(store.path)] = lambda: script.write_text(swapped)  # at the check
        first = await tools.run_skill_script("marker", "scripts/mark.py", [str(marker)])
        assert str(store.path) not in _ON_OPEN  # the check ran, and the hook swapped the script
        assert script.read_text() == swapped
        assert (first["exit_code"], first["stdout"]) == (0, "ok\n"), first
        assert marker.read_text() == "approved"
        marker.unlink()
        second = await tools.run_skill_script("marker", "scripts/mark.py", [str(marker)])
    finally:
        _ON_OPEN.clear()
        await tools.close()
    assert second["error_code"] == codes.SCRIPT_NOT_APPROVED, second
    assert not marker.exists()


async def test_an_approval_never_runs_content_whose_file_names_spelled_it(tmp_path: Path) -> None:
    """The user approved a skill whose odd folder name spelled a script's entry; a commit then
    made that entry real. Under ``sha256sum``-style digests both contents had one digest."""
    project = tmp_path / "repo"
    skills = project / ".agents" / "skills"
    files = {"notes.md": "notes\n", "scripts/mark.py": MARK.format("forged", "forged")}
    folder = write_skill(skills, "marker", files)
    digests = {path: digest_of((folder / path).read_bytes()) for path in ["SKILL.md", *files]}
    spelled = f"notes.md\n{digests['scripts/mark.py']}  scripts/mark.py"
    approved = {"SKILL.md": digests["SKILL.md"], spelled: digests["notes.md"]}
    store = await asyncio.to_thread(ApprovalStore, tmp_path / "cache")
    await asyncio.to_thread(
        store.approve, files_digest(approved), name="marker", source=str(skills), scripts=True
    )
    backend = await project_backend(project, home=tmp_path / "no-home")
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=ProcessRunner()))
    marker = tmp_path / "ran"
    try:
        result = await tools.run_skill_script("marker", "scripts/mark.py", [str(marker)])
    finally:
        await tools.close()
    assert result.get("error_code") == codes.SCRIPT_NOT_APPROVED, result
    assert not marker.exists()
