"""catalog.watch(): filesystem events for local folders, polling for everything else."""

from __future__ import annotations

import asyncio
from pathlib import Path

from backends import LocalBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog


async def write_skill(root: Path, name: str) -> None:
    def write() -> None:
        (root / name).mkdir(exist_ok=True)
        (root / name / "SKILL.md").write_bytes(skill_md(name))

    await asyncio.to_thread(write)


async def test_watch_reports_a_skill_added_to_a_local_folder(tmp_path: Path) -> None:
    await write_skill(tmp_path, "alpha")
    catalog = SkillCatalog(LocalBackend(tmp_path))
    reports = catalog.watch(interval=60)  # events, not polling, must wake it
    first = await anext(reports)
    assert first.added == ("alpha",)
    await write_skill(tmp_path, "beta")
    second = await asyncio.wait_for(anext(reports), timeout=20)
    assert second.added == ("beta",)
    await reports.aclose()


async def test_watch_polls_other_backends_and_reports_only_changes() -> None:
    backend = MemoryBackend({"alpha": {"SKILL.md": skill_md("alpha")}})
    catalog = SkillCatalog(backend)
    reports = catalog.watch(interval=0.01)
    assert (await anext(reports)).added == ("alpha",)
    backend.put("beta", {"SKILL.md": skill_md("beta")})
    report = await asyncio.wait_for(anext(reports), timeout=5)
    assert report.added == ("beta",)
    backend.put("broken", {"SKILL.md": "no frontmatter"})
    report = await asyncio.wait_for(anext(reports), timeout=5)
    assert not report.has_changes
    assert [problem.name for problem in report.errors] == ["broken"]
    await reports.aclose()
