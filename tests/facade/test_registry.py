"""SkillsRegistry's own API: discover in precedence order, read, render, refuse misuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import MemoryBackend
from backends._errors import SkillNotFoundError, StorageError
from backends.testing import skill_md
from skills_core import _codes as codes
from skills_core.adk.adk_skills import SkillsConfig, SkillsRegistry
from tests.backends.harnesses import LocalHarness
from tests.facade.skills import PDF_DESCRIPTION, TREE
from tests.remote.connections import connections
from tests.remote.servers import StaticServer
from tests.remote.trees import skills_tree
from tests.remote.zips import zip_bytes


async def folder(root: Path, tree: dict[str, bytes]) -> str:
    await LocalHarness(root).make_backend(tree)
    return str(root)


async def test_an_undiscovered_registry_is_empty() -> None:
    registry = SkillsRegistry()
    assert len(registry) == 0
    assert registry.list_metadata() == []
    assert registry.get_metadata("pdf-processing") is None
    assert "pdf-processing" not in registry
    assert registry.to_available_skills_xml() == "<available_skills>\n</available_skills>"
    with pytest.raises(SkillNotFoundError):
        await registry.load_skill("pdf-processing")


async def test_discover_counts_and_reads_the_skills(tmp_path: Path) -> None:
    registry = SkillsRegistry()
    assert await registry.discover([await folder(tmp_path, dict(TREE))]) == 2
    assert len(registry) == 2
    assert "pdf-processing" in registry
    assert [meta.name for meta in registry.list_metadata()] == ["pdf-processing", "web-scraper"]
    metadata = registry.get_metadata("pdf-processing")
    assert metadata is not None
    assert metadata.description == PDF_DESCRIPTION
    skill = await registry.load_skill("pdf-processing")
    assert skill.body.startswith("# PDF processing")
    assert skill.location == str(tmp_path / "pdf-processing" / "SKILL.md")
    assert [entry.path for entry in skill.files] == [
        "SKILL.md",
        "references/api_docs.md",
        "scripts/extract_text.py",
    ]
    with_locations = registry.to_available_skills_xml(include_location=True)
    assert f"<location>\n{skill.location}\n</location>" in with_locations
    assert "<location>" not in registry.to_available_skills_xml()


async def test_earlier_sources_win_and_shadowing_is_reported(tmp_path: Path) -> None:
    project = await folder(
        tmp_path / "project", {"pdf-processing/SKILL.md": skill_md("pdf-processing", "Mine.")}
    )
    user = await folder(tmp_path / "user", dict(TREE))
    registry = SkillsRegistry()
    assert await registry.discover([project, user]) == 2
    metadata = registry.get_metadata("pdf-processing")
    assert metadata is not None
    assert metadata.description == "Mine."
    shadowed = [w for w in registry.catalog.warnings if w.code == codes.SHADOWED]
    assert [(w.name, w.location) for w in shadowed] == [
        ("pdf-processing", str(tmp_path / "user" / "pdf-processing" / "SKILL.md"))
    ]


async def test_a_later_discover_adds_sources_below_the_earlier_ones(tmp_path: Path) -> None:
    registry = SkillsRegistry()
    first = MemoryBackend({"pdf-processing": {"SKILL.md": skill_md("pdf-processing", "First.")}})
    assert await registry.discover([first]) == 1
    assert await registry.discover([await folder(tmp_path, dict(TREE))]) == 2
    metadata = registry.get_metadata("pdf-processing")
    assert metadata is not None
    assert metadata.description == "First."
    assert registry.get_metadata("web-scraper") is not None


async def test_a_source_that_cannot_be_listed_raises_and_keeps_the_registry(
    tmp_path: Path,
) -> None:
    registry = SkillsRegistry()
    await registry.discover([await folder(tmp_path / "skills", dict(TREE))])
    with pytest.raises(StorageError, match="cannot list") as raised:
        await registry.discover([str(tmp_path / "missing")])
    assert raised.value.location == str(tmp_path / "missing")
    assert len(registry) == 2
    assert await registry.discover([MemoryBackend()]) == 2  # the failed source was not kept


async def test_a_leading_tilde_is_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    await folder(tmp_path / "skills", dict(TREE))
    registry = SkillsRegistry()
    assert await registry.discover(["~/skills"]) == 2


async def test_discover_wants_a_list() -> None:
    registry = SkillsRegistry()
    with pytest.raises(ValueError, match="list of paths"):
        await registry.discover("./skills")
    with pytest.raises(ValueError, match="list of paths"):
        await registry.discover([])


async def test_strict_validation_refuses_what_lenient_loading_serves(tmp_path: Path) -> None:
    odd = b"---\nname: odd\ndescription: Has an unknown field.\ncolour: blue\n---\nBody.\n"
    source = await folder(tmp_path, {**TREE, "odd/SKILL.md": odd})
    lenient, strict = SkillsRegistry(), SkillsRegistry(SkillsConfig(strict_validation=True))
    assert await lenient.discover([source]) == 3
    assert await strict.discover([source]) == 2
    assert [problem.code for problem in strict.catalog.errors] == [codes.UNKNOWN_FIELD]


async def test_scripts_are_off_without_a_policy() -> None:
    registry = SkillsRegistry()
    with pytest.raises(ValueError, match="ScriptPolicy"):
        registry.create_run_script_tool()


async def test_the_listing_can_stay_out_of_the_description(tmp_path: Path) -> None:
    registry = SkillsRegistry()
    await registry.discover([await folder(tmp_path, dict(TREE))])
    declared = registry.create_use_skill_tool(include_skills_listing=False)._get_declaration()
    assert declared is not None
    assert declared.description is not None
    assert "<available_skills>" not in declared.description
    listed = registry.create_use_skill_tool()._get_declaration()
    assert listed is not None
    assert listed.description is not None
    assert listed.description.endswith(registry.to_available_skills_xml())


class TrackedBackend(MemoryBackend):
    """A memory backend that counts how often it is closed."""

    closed = 0

    async def aclose(self) -> None:
        self.closed += 1
        await super().aclose()


async def test_close_closes_the_sources_it_opened_and_no_other(
    static_server: StaticServer,
) -> None:
    static_server.files["/registry/skills.zip"] = zip_bytes(skills_tree(2))
    before = await connections(static_server)
    passed = TrackedBackend({"org": {"SKILL.md": skill_md("org")}})
    registry = SkillsRegistry()
    assert await registry.discover([static_server.url + "/registry/skills.zip", passed]) == 3
    assert await connections(static_server) > before
    await registry.close()
    assert await connections(static_server) <= before
    assert passed.closed == 0
