"""project_backend scans the folders agentskills.io's client guide names, project over user."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from backends.scopes import project_backend
from backends.testing import skill_md
from skills_core import SkillCatalog, codes
from tests.collections.shapes import uipath


def put(folder: Path, name: str, description: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_bytes(skill_md(name, description))


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    put(project / ".agents" / "skills", "deploy", "Project deploy, cross-client folder.")
    put(project / ".agents" / "skills", "review", "Project review.")
    put(project / ".claude" / "skills", "review", "Project review, Claude folder.")
    put(project / ".claude" / "skills", "lint", "Project lint.")
    put(home / ".agents" / "skills", "deploy", "User deploy.")
    put(home / ".agents" / "skills", "notes", "User notes.")
    put(home / ".claude" / "skills", "notes", "User notes, Claude folder.")
    put(home / ".claude" / "skills", "commit", "User commit.")
    return project, home


async def test_project_wins_over_user_and_agents_over_claude(
    layout: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    project, home = layout
    backend = await project_backend(project, home=home)
    assert [scope for scope, _ in backend.folders] == ["project", "project", "user", "user"]
    catalog = SkillCatalog(backend)
    with caplog.at_level(logging.WARNING, logger="skillfs"):
        report = await catalog.refresh()

    described = {meta.name: meta.description for meta in catalog.list()}
    assert described == {
        "commit": "User commit.",
        "deploy": "Project deploy, cross-client folder.",
        "lint": "Project lint.",
        "notes": "User notes.",
        "review": "Project review.",
    }
    shadowed = sorted(
        (problem.name, Path(problem.location).parent.parent.parent.name)
        for problem in report.warnings
        if problem.code == codes.SHADOWED
    )
    assert shadowed == [("deploy", ".agents"), ("notes", ".claude"), ("review", ".claude")]
    logged = [record.getMessage() for record in caplog.records if "shadowed" in record.getMessage()]
    assert len(logged) == 3
    assert any(str(home / ".agents" / "skills" / "deploy") in line for line in logged)

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="skillfs"):
        await catalog.refresh()
    assert not [record for record in caplog.records if "shadowed" in record.getMessage()]


async def test_an_untrusted_project_brings_no_skills(layout: tuple[Path, Path]) -> None:
    project, home = layout
    catalog = SkillCatalog(await project_backend(project, home=home, trusted=False))
    await catalog.refresh()
    assert [meta.name for meta in catalog.list()] == ["commit", "deploy", "notes"]
    assert catalog.metadata("deploy").description == "User deploy."


async def test_no_skill_folders_is_an_empty_catalog(tmp_path: Path) -> None:
    backend = await project_backend(tmp_path / "project", home=tmp_path / "home")
    catalog = SkillCatalog(backend)
    report = await catalog.refresh()
    assert report.ok
    assert len(catalog) == 0
    assert "no skill folders" in backend.location


async def test_a_project_in_the_home_folder_does_not_shadow_itself(tmp_path: Path) -> None:
    put(tmp_path / ".agents" / "skills", "notes", "Notes.")
    backend = await project_backend(tmp_path, home=tmp_path)
    report = await SkillCatalog(backend).refresh()
    assert len(backend.folders) == 1
    assert not report.warnings


async def test_uipath_ships_a_project_skill_in_claude_skills(tmp_path: Path) -> None:
    repository = tmp_path / "UiPath-skills"
    uipath(references=3).write(repository)
    catalog = SkillCatalog(await project_backend(repository, home=tmp_path / "home"))
    await catalog.refresh()
    assert [meta.name for meta in catalog.list()] == ["manage-skill-flavors"]
