"""Instruction files as skills: adk-rust's discovery of .skills/**/*.md and AGENTS.md & co."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from backends._instruction_files import InstructionFilesBackend
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.context._instructions import (
    instruction_documents,
    instruction_skills,
    normalize_id,
)


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def doc(name: str, description: str = "d", body: str = "Body.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


async def load(root: Path) -> SkillCatalog:
    catalog = SkillCatalog(instruction_skills(root))
    await catalog.refresh()
    return catalog


async def listed(root: Path) -> list[str]:
    return [
        ref.location.removeprefix(f"{root}{os.sep}")
        for ref in await InstructionFilesBackend(root).list()
    ]


async def test_only_markdown_under_dot_skills(tmp_path: Path) -> None:
    write(
        tmp_path,
        {".skills/a.md": doc("a"), ".skills/nested/b.md": doc("b"), ".skills/notes.txt": "x"},
    )
    assert await listed(tmp_path) == [".skills/a.md", ".skills/nested/b.md"]
    catalog = await load(tmp_path)
    assert [meta.name for meta in catalog.list()] == ["a", "b"]


async def test_convention_files_anywhere_soul_only_at_the_root(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "AGENTS.md": "# Root instructions\n",
            "pkg/CLAUDE.md": "# Claude instructions\n",
            "SOUL.MD": "# Soul instructions\n",
            "pkg/SOUL.md": "# Nested soul should be ignored\n",
            "pkg/readme.md": "# ignore\n",
            "target/GEMINI.md": "# ignored by target skip\n",
            "node_modules/x/AGENTS.md": "# ignored\n",
            ".venv/lib/CLAUDE.md": "# ignored\n",
            "__pycache__/COPILOT.md": "# ignored\n",
            ".git/AGENTS.md": "# ignored\n",
            "docs/agent.md": "# lower case counts too\n",
        },
    )
    assert await listed(tmp_path) == ["AGENTS.md", "SOUL.MD", "docs/agent.md", "pkg/CLAUDE.md"]
    catalog = await load(tmp_path)
    assert [meta.name for meta in catalog.list()] == ["agents", "docs-agent", "pkg-claude", "soul"]


async def test_a_convention_file_without_frontmatter_becomes_a_skill(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "# Project Agent Instructions\nAlways prefer rg over grep.\n"})
    catalog = await load(tmp_path)
    assert catalog.errors == ()
    meta = catalog.metadata("agents")
    assert meta.description == "Project Agent Instructions"
    assert meta.tags == ("convention", "agents-md")
    skill = await catalog.get("agents")
    assert skill.body == "# Project Agent Instructions\nAlways prefer rg over grep."
    assert [entry.path for entry in skill.files] == ["AGENTS.md"]
    assert (
        await catalog.read_resource("agents", "AGENTS.md") == (tmp_path / "AGENTS.md").read_bytes()
    )


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("Bias toward deterministic workflows.\n", "Bias toward deterministic workflows."),
        ("\n\n" + "x" * 200 + "\n", "x" * 120),
        ("", "Instructions loaded from CLAUDE.md"),
        ('# Rules: use "rg" — ünï {a}\n', 'Rules: use "rg" — ünï {a}'),
        ("#\nnext\n", "#"),
        ("# Tab\there\x1b[31m\n", "Tabhere[31m"),
    ],
)
async def test_a_description_is_found_in_any_file(
    tmp_path: Path, text: str, description: str
) -> None:
    write(tmp_path, {"CLAUDE.md": text})
    catalog = await load(tmp_path)
    assert catalog.metadata("claude").description == description
    assert catalog.metadata("claude").tags == ("convention", "claude-md")


async def test_a_convention_frontmatter_is_honoured(tmp_path: Path) -> None:
    write(tmp_path, {"GEMINI.md": doc("gemini", "Repo rules for Gemini")})
    assert (await load(tmp_path)).metadata("gemini").description == "Repo rules for Gemini"


async def test_a_skills_document_needs_its_frontmatter(tmp_path: Path) -> None:
    write(tmp_path, {".skills/missing.md": "# Missing frontmatter\n", ".skills/ok.md": doc("ok")})
    catalog = await load(tmp_path)
    assert [meta.name for meta in catalog.list()] == ["ok"]
    assert [(problem.name, problem.code) for problem in catalog.errors] == [
        ("missing", codes.NO_FRONTMATTER)
    ]


async def test_a_skill_folder_under_dot_skills_keeps_its_resources(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".skills/my-skill/skill.md": doc("my-skill"),
            ".skills/my-skill/references/docs.md": "# Reference Documentation\n",
            ".skills/my-skill/README.md": "# My Skill README\nNo frontmatter here.\n",
        },
    )
    catalog = await load(tmp_path)
    assert [meta.name for meta in catalog.list()] == ["my-skill"]
    assert catalog.errors == ()
    skill = await catalog.get("my-skill")
    assert [entry.path for entry in skill.files] == ["README.md", "references/docs.md", "skill.md"]
    data = await catalog.read_resource("my-skill", "references/docs.md")
    assert data == b"# Reference Documentation\n"


async def test_names_taken_twice_stay_apart(tmp_path: Path) -> None:
    write(tmp_path, {".skills/a/notes.md": doc("notes"), ".skills/b/notes.md": doc("notes")})
    suffix = hashlib.sha256(b".skills/b/notes.md").hexdigest()[:8]
    assert [ref.name for ref in await InstructionFilesBackend(tmp_path).list()] == [
        "notes",
        f"notes-{suffix}",
    ]


async def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, {"AGENTS.md": "# secret\n"})
    project = tmp_path / "project"
    write(project, {"CLAUDE.md": "# Claude\n"})
    (project / "AGENTS.md").symlink_to(outside / "AGENTS.md")
    (project / "linked").symlink_to(outside, target_is_directory=True)
    assert await listed(project) == ["CLAUDE.md"]


async def test_a_refresh_reads_only_what_changed(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "# One\n", "pkg/CLAUDE.md": "# Two\n", ".skills/s.md": doc("s")})
    catalog = await load(tmp_path)
    unchanged = await catalog.refresh()
    assert (unchanged.fetched, unchanged.changed) == (0, ())
    write(tmp_path, {"AGENTS.md": "# One, edited\n"})
    os.utime(tmp_path / "AGENTS.md", ns=(1, 1))  # a new mtime whatever the clock's resolution
    (tmp_path / ".skills/s.md").unlink()
    write(tmp_path, {".skills/t.md": doc("t")})
    report = await catalog.refresh()
    assert (report.changed, report.removed, report.added) == (("agents",), ("s",), ("t",))
    assert report.fetched == 2
    assert catalog.metadata("agents").description == "One, edited"


async def test_documents_carry_hash_modification_time_and_id(tmp_path: Path) -> None:
    text = "# Repo Instructions\nUse cargo test before commit.\n"
    write(tmp_path, {"AGENTS.md": text, ".skills/search.md": doc("search", "Search docs")})
    catalog = await load(tmp_path)
    documents = instruction_documents(catalog)
    digest = hashlib.sha256(text.encode()).hexdigest()
    agents = documents[0]
    assert (agents.name, agents.path, agents.hash) == ("agents", "AGENTS.md", digest)
    assert agents.id == f"agents-{digest[:12]}"
    assert agents.tags == ("convention", "agents-md")
    assert agents.modified == (tmp_path / "AGENTS.md").stat().st_mtime
    assert [document.name for document in documents] == ["agents", "search"]
    assert normalize_id("Repo_Search Tool!") == "repo-search-tool"
    assert normalize_id("¿¿") == "skill"


async def test_a_missing_root_is_a_listing_failure(tmp_path: Path) -> None:
    catalog = SkillCatalog(instruction_skills(tmp_path / "nowhere"))
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED


async def test_instruction_documents_needs_an_instruction_catalog(tmp_path: Path) -> None:
    from backends import MemoryBackend

    with pytest.raises(TypeError, match="not instruction files"):
        instruction_documents(SkillCatalog(MemoryBackend()))


async def test_the_backend_is_one_class_in_backends_with_the_format_handed_in(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"AGENTS.md": "# Root instructions\n"})
    catalog = await load(tmp_path)
    assert type(catalog.backend) is InstructionFilesBackend
    assert catalog.metadata("agents").description == "Root instructions"
    plain = InstructionFilesBackend(tmp_path)  # storage alone: the bytes as stored
    await plain.list()
    document = await plain.get("agents")
    assert document.data == b"# Root instructions\n"
    digest = hashlib.sha256(document.data).hexdigest()
    assert plain.file_hash("agents", document.fingerprint) == digest
