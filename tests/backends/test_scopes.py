"""project_backend scans the folders agentskills.io's client guide names, project over user."""

from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path

import pytest

from backends import LocalBackend
from backends._digests import skill_digest
from backends._limits import DEFAULT_LIMITS
from backends._scopes import UntrustedFolder, project_backend
from backends.testing import skill_md
from skills_core import ApprovalStore, SkillCatalog, TrustPolicy
from skills_core import _codes as codes
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


DEPLOY = b"---\nname: deploy\ndescription: Project deploy.\nallowed-tools: Bash Read\n---\nShip.\n"


@pytest.fixture
def granting(layout: tuple[Path, Path]) -> tuple[Path, Path]:
    """The layout, with the project's deploy skill asking for tools and the user's notes too."""
    project, home = layout
    (project / ".agents" / "skills" / "deploy" / "SKILL.md").write_bytes(DEPLOY)
    notes = home / ".agents" / "skills" / "notes" / "SKILL.md"
    notes.write_bytes(notes.read_bytes().replace(b"---\n#", b"allowed-tools: Read\n---\n#", 1))
    return project, home


async def test_project_skills_grant_no_tools_by_default(granting: tuple[Path, Path]) -> None:
    project, home = granting
    catalog = SkillCatalog(await project_backend(project, home=home))
    report = await catalog.refresh()
    assert catalog.metadata("deploy").description == "Project deploy."  # served
    assert catalog.metadata("deploy").allowed_tools == ()  # granting nothing
    assert catalog.restricting_tools("deploy") == ("Bash", "Read")  # still restricting
    assert [(w.name, w.code) for w in report.warnings if w.code == codes.FIELD_WITHHELD] == [
        ("deploy", codes.FIELD_WITHHELD)
    ]
    assert catalog.metadata("notes").allowed_tools == ("Read",)  # the user's own


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(tmp_path / "cache")


async def test_an_approved_or_trusted_project_grants_its_tools(
    granting: tuple[Path, Path], store: ApprovalStore
) -> None:
    project, home = granting
    backend = await project_backend(project, home=home)
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()
    digest = await skill_digest(LocalBackend(project / ".agents" / "skills"), "deploy")
    approve = functools.partial(store.approve, digest, name="deploy", source=str(project))
    await asyncio.to_thread(approve, scripts=True)
    await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()  # scripts only
    await asyncio.to_thread(approve, tools=True)
    await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")
    (project / ".agents" / "skills" / "deploy" / "notes.md").write_text("changed\n")
    await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()  # another content

    trusted = SkillCatalog(await project_backend(project, home=home, trusted=True))
    await trusted.refresh()
    assert trusted.metadata("deploy").allowed_tools == ("Bash", "Read")


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


class CountingFolder(UntrustedFolder):
    """An untrusted folder that counts the files it reads."""

    reads = 0

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        self.reads += 1
        return await super().read(name, path, max_bytes=max_bytes)


async def test_a_listing_reads_only_the_skills_whose_files_changed(
    tmp_path: Path, store: ApprovalStore
) -> None:
    for name in ("deploy", "review"):
        put(tmp_path / "skills", name, f"{name.title()}s things.")
        (tmp_path / "skills" / name / "notes.md").write_text("notes\n")
    folder = CountingFolder(tmp_path / "skills")
    catalog = SkillCatalog(folder, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    assert folder.reads == 4  # two files of each skill, to learn its digest
    await catalog.refresh()
    assert folder.reads == 4  # nothing changed: nothing read
    (tmp_path / "skills" / "review" / "notes.md").write_text("longer notes\n")
    await catalog.refresh()
    assert folder.reads == 6  # the changed skill's two files
