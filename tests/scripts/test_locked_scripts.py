"""A script swapped after the lock is refused before it runs: a real process, a local folder."""

from __future__ import annotations

from pathlib import Path

from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._catalog.catalog import lock_of
from skills_core._trust.policy import TrustPolicy
from skills_core.tools import ProcessRunner, ScriptPolicy, SkillTools
from tests.scripts.support import MARK, write_skill


async def test_a_swapped_script_never_runs(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = write_skill(root, "marker", {"scripts/mark.py": MARK.format("locked", "locked")})
    backend = LocalBackend(root)
    unlocked = SkillCatalog(backend)
    await unlocked.refresh()
    catalog = SkillCatalog(backend, trust=TrustPolicy(lock=await lock_of(unlocked)))
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=ProcessRunner()))
    marker = tmp_path / "ran"
    try:
        result = await tools.run_skill_script("marker", "scripts/mark.py", [str(marker)])
        assert (result["exit_code"], result["stdout"]) == (0, "locked\n"), result
        marker.unlink()
        (folder / "scripts" / "mark.py").write_text(MARK.format("swapped", "swapped"))
        await catalog.refresh()
        result = await tools.run_skill_script("marker", "scripts/mark.py", [str(marker)])
    finally:
        await tools.close()
    assert result["error_code"] == codes.LOCK_MISMATCH, result
    assert result["error"] == "scripts/mark.py differs from the lock skills.lock; refused"
    assert not marker.exists()
