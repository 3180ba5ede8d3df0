"""Small generated trees in the shapes of seven public skill collections.

Each tree copies the *layout* of a real collection (where its skills live, what sits next to
them, the kinds of files they ship and the frontmatter habits that trip loaders), read from
the repositories' file listings; the contents are made up, short and deterministic. Nothing
is vendored. Paths are relative to the repository root, as a ``git clone`` would lay them out.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

TTF_HEADER = b"\x00\x01\x00\x00\x00\x0c\x00\x80\x00\x03\x00\x40"
PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
PDF_HEADER = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


@dataclass(frozen=True)
class Collection:
    """One collection's shape.

    Attributes:
        repo: The GitHub repository it copies (``owner/name``).
        skills_root: The folder holding the skill folders, relative to the repository root.
        tree: Every file, ``{path relative to the repository root: bytes}``.
        skills: The skill folders under ``skills_root`` a client should find.
        traps: What the shape exercises, for people reading a failing test.
    """

    repo: str
    skills_root: str
    tree: Mapping[str, bytes]
    skills: tuple[str, ...]
    traps: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        """The repository name without its owner."""
        return self.repo.replace("/", "-")

    def skills_tree(self) -> dict[str, bytes]:
        """The files under ``skills_root``, relative to it (what a backend root holds)."""
        prefix = f"{self.skills_root}/"
        return {
            path[len(prefix) :]: data for path, data in self.tree.items() if path.startswith(prefix)
        }

    def skill_folders(self) -> dict[str, dict[str, bytes]]:
        """``{folder: {path: bytes}}`` of every visible folder under ``skills_root``."""
        folders: dict[str, dict[str, bytes]] = {}
        for path, data in self.skills_tree().items():
            folder, _, relative = path.partition("/")
            if relative and not folder.startswith("."):
                folders.setdefault(folder, {})[relative] = data
        return folders

    def write(self, root: Path) -> Path:
        """Write the whole repository under ``root``; return the skills root's path."""
        for path, data in self.tree.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return root / self.skills_root


def skill_md(name: str, description: str, *, extra: str = "", body: str = "") -> bytes:
    """A SKILL.md with the given frontmatter lines, in the collections' own style."""
    text = body or f"# {name}\n\nSteps for {name}.\n"
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{text}".encode()


def binary(header: bytes, size: int) -> bytes:
    """``size`` bytes starting with ``header``, not valid UTF-8 (NUL and 0xFF bytes)."""
    filler = bytes(range(256)) * (size // 256 + 1)
    return (header + filler)[:size]


def _zip(files: Mapping[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, (2024, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def anthropics() -> Collection:
    """anthropics/skills: ``skills/<name>``, a LICENSE.txt per skill, fonts, schemas, a PDF."""
    license_line = "license: Complete terms in LICENSE.txt\n"
    elements = b"  <xsd:element/>\n" * 4000
    xsd = b'<?xml version="1.0"?>\n<xsd:schema>\n' + elements + b"</xsd:schema>\n"
    tree = {
        "README.md": b"# Skills\n",
        ".claude-plugin/marketplace.json": b'{"plugins": []}\n',
        "spec/agent-skills-spec.md": b"# Spec\n",
        "template/SKILL.md": skill_md("template-skill", "Replace with a description."),
        "skills/canvas-design/SKILL.md": skill_md(
            "canvas-design", "Create visual art in .png and .pdf documents.", extra=license_line
        ),
        "skills/canvas-design/LICENSE.txt": b"Apache License 2.0\n",
        "skills/canvas-design/canvas-fonts/Lora-Regular.ttf": binary(TTF_HEADER, 24_000),
        "skills/canvas-design/canvas-fonts/Lora-OFL.txt": b"SIL Open Font License\n",
        "skills/docx/SKILL.md": skill_md(
            "docx", "Create, edit and analyse Word documents.", extra=license_line
        ),
        "skills/docx/LICENSE.txt": b"Proprietary.\n",
        "skills/docx/ooxml.md": b"# Office Open XML\n",
        "skills/docx/ooxml/schemas/wml.xsd": xsd,
        "skills/docx/scripts/document.py": b"print('document')\n",
        "skills/theme-factory/SKILL.md": skill_md(
            "theme-factory", "Style artifacts with a theme.", extra=license_line
        ),
        "skills/theme-factory/LICENSE.txt": b"Apache License 2.0\n",
        "skills/theme-factory/theme-showcase.pdf": binary(PDF_HEADER, 6_000),
        "skills/theme-factory/themes/ocean-depths.md": b"# Ocean depths\n",
        "skills/pdf/SKILL.md": skill_md("pdf", "Fill PDF forms.", extra=license_line),
        "skills/pdf/LICENSE.txt": b"Proprietary.\n",
        "skills/pdf/forms.md": b"# Forms\n",
        "skills/pdf/reference.md": b"# Reference\n",
        "skills/pdf/scripts/fill_fillable_fields.py": b"print('fill')\n",
    }
    return Collection(
        "anthropics/skills",
        "skills",
        tree,
        ("canvas-design", "docx", "pdf", "theme-factory"),
        ("fonts, an XSD schema and a PDF", "files outside references/assets/scripts"),
    )


def vercel() -> Collection:
    """vercel-labs/agent-skills: names ``vercel-<folder>``, rules/ folders, a zip beside them."""
    tree: dict[str, bytes] = {
        "README.md": b"# Agent skills\n",
        "packages/react-best-practices-build/package.json": b"{}\n",
        "skills/accessibility-best-practices.zip": _zip({"SKILL.md": b"zipped copy\n"}),
    }
    prefixed = ("react-best-practices", "composition-patterns", "react-native-skills")
    prefixed += ("react-view-transitions",)
    plain = ("web-design-guidelines", "deploy-to-vercel", "accessibility-best-practices")
    for folder in prefixed + plain:
        name = f"vercel-{folder}" if folder in prefixed else folder
        tree[f"skills/{folder}/SKILL.md"] = skill_md(
            name, f"Guidelines for {folder.replace('-', ' ')}.", extra="license: MIT\n"
        )
        tree[f"skills/{folder}/AGENTS.md"] = f"# {folder}, compiled\n".encode()
        tree[f"skills/{folder}/metadata.json"] = b'{"version": "1.0.0"}\n'
        tree[f"skills/{folder}/rules/_sections.md"] = b"# Sections\n"
        tree[f"skills/{folder}/rules/async-parallel.md"] = b"# Parallel\n"
    return Collection(
        "vercel-labs/agent-skills",
        "skills",
        tree,
        tuple(sorted(prefixed + plain)),
        ("frontmatter name unlike its folder (vercel-<folder>)", "a .zip next to the folders"),
    )


def superpowers() -> Collection:
    """obra/superpowers: "Use when..." descriptions, helper files at the skill's top level."""
    tree = {
        "README.md": b"# Superpowers\n",
        ".claude-plugin/plugin.json": b"{}\n",
        "commands/brainstorm.md": b"# Brainstorm\n",
        "hooks/session-start.sh": b"#!/bin/sh\n",
        "skills/systematic-debugging/SKILL.md": skill_md(
            "systematic-debugging", "Use when encountering any bug or test failure"
        ),
        "skills/systematic-debugging/root-cause-tracing.md": b"# Tracing\n",
        "skills/systematic-debugging/find-polluter.sh": b"#!/usr/bin/env bash\necho polluter\n",
        "skills/systematic-debugging/condition-based-waiting-example.ts": b"export {};\n",
        "skills/brainstorming/SKILL.md": skill_md(
            "brainstorming", "Use before any creative work - explores intent first"
        ),
        "skills/writing-skills/SKILL.md": skill_md(
            "writing-skills", "Use when creating or editing skills"
        ),
        "skills/writing-skills/anthropic-best-practices.md": b"# Practices\n",
        "skills/writing-skills/graphviz-conventions.dot": b"digraph {}\n",
    }
    return Collection(
        "obra/superpowers",
        "skills",
        tree,
        ("brainstorming", "systematic-debugging", "writing-skills"),
        ("scripts and guides beside SKILL.md, not in scripts/ or references/",),
    )


def k_dense() -> Collection:
    """K-Dense-AI/claude-scientific-skills: ``scientific-skills/<name>``, an assets/.env.example."""
    author = "metadata:\n    skill-author: K-Dense Inc.\n"
    tree = {
        "README.md": b"# Scientific skills\n",
        "docs/scientific-skills.md": b"# Index\n",
        "scientific-skills/perplexity-search/SKILL.md": skill_md(
            "perplexity-search", "Web searches through Perplexity models.", extra=author
        ),
        "scientific-skills/perplexity-search/assets/.env.example": (
            b"OPENROUTER_API_KEY=sk-or-v1-your-key-here\n"
        ),
        "scientific-skills/perplexity-search/references/openrouter_setup.md": b"# Setup\n",
        "scientific-skills/perplexity-search/scripts/perplexity_search.py": b"print('search')\n",
        "scientific-skills/perplexity-search/scripts/setup_env.py": b"print('setup')\n",
        "scientific-skills/rdkit/SKILL.md": skill_md(
            "rdkit", "Cheminformatics with RDKit.", extra=author
        ),
        "scientific-skills/rdkit/references/api_reference.md": b"# API\n",
        "scientific-skills/rdkit/scripts/molecular_properties.py": b"print('props')\n",
    }
    return Collection(
        "K-Dense-AI/claude-scientific-skills",
        "scientific-skills",
        tree,
        ("perplexity-search", "rdkit"),
        ("a documented hidden file: assets/.env.example",),
    )


def openai() -> Collection:
    """openai/skills: every skill inside hidden folders (``skills/.curated`` and friends)."""
    tree: dict[str, bytes] = {"README.md": b"# Skills\n", "contributing.md": b"# Contributing\n"}
    for tier, name in (
        (".curated", "gh-fix-ci"),
        (".curated", "notion-knowledge-capture"),
        (".experimental", "create-plan"),
        (".system", "skill-creator"),
    ):
        base = f"skills/{tier}/{name}"
        tree[f"{base}/SKILL.md"] = skill_md(name, f"Codex skill {name}.")
        tree[f"{base}/LICENSE.txt"] = b"Apache License 2.0\n"
        tree[f"{base}/agents/openai.yaml"] = b"interface:\n  display_name: skill\n"
        tree[f"{base}/assets/icon.png"] = binary(PNG_HEADER, 2_000)
    return Collection(
        "openai/skills",
        "skills/.curated",
        tree,
        ("gh-fix-ci", "notion-knowledge-capture"),
        ("skills only in hidden folders: skills/.curated, .experimental, .system",),
    )


def uipath(references: int = 700) -> Collection:
    """UiPath/skills: one skill with hundreds of reference paths, a hidden maintenance folder."""
    base = "skills/uipath-rpa"
    tree: dict[str, bytes] = {
        "README.md": b"# UiPath skills\n",
        ".claude/skills/manage-skill-flavors/SKILL.md": skill_md(
            "manage-skill-flavors", "Manage the flavours of this repository's skills."
        ),
        f"{base}/SKILL.md": skill_md("uipath-rpa", "Build UiPath RPA workflows."),
        f"{base}/CLAUDE.md": b"# Notes for maintainers\n",
        f"{base}/.maintenance/pattern-card-maintenance.md": b"# Maintenance\n",
        f"{base}/agents/uipath-project-discovery-agent.md": b"# Discovery agent\n",
        f"{base}/assets/json-template.md": b"# JSON template\n",
        "skills/uipath-agents/SKILL.md": skill_md("uipath-agents", "Build UiPath agents."),
        "skills/uipath-agents/references/overview.md": b"# Overview\n",
    }
    for index in range(references):
        package = f"UiPath.Package{index // 50:02d}.Activities"
        path = f"{base}/references/activity-docs/{package}/25.10/activities/Activity{index:03d}.md"
        tree[path] = f"# Activity {index}\n".encode()
    return Collection(
        "UiPath/skills",
        "skills",
        tree,
        ("uipath-agents", "uipath-rpa"),
        (f"a skill with {references + 4} files", "a project-scope .claude/skills folder"),
    )


def editframe() -> Collection:
    """editframe/skills: license and metadata in frontmatter, an eval/ folder that is no skill."""
    extra = 'license: MIT\nmetadata:\n  author: editframe\n  version: "1.0"\n'
    tree = {
        ".DS_Store": binary(b"\x00\x00\x00\x01Bud1", 600),
        "skills/README.md": b"# Editframe skills\n",
        "skills/.claude-plugin/marketplace.json": b'{"plugins": []}\n',
        "skills/eval/rubric.ts": b"export {};\n",
        "skills/eval/runs/baseline-01/summary.txt": b"all good\n",
        "skills/elements-composition/SKILL.md": skill_md(
            "elements-composition", "Create videos with Editframe Elements.", extra=extra
        ),
        "skills/elements-composition/references/timegroup.md": b"# Timegroup\n",
        "skills/elements-composition/references/video.md": b"# Video\n",
        "skills/brand-video-generator/SKILL.md": skill_md(
            "brand-video-generator", "Generate a brand video.", extra=extra
        ),
        "skills/brand-video-generator/references/color-psychology.md": b"# Colour\n",
    }
    return Collection(
        "editframe/skills",
        "skills",
        tree,
        ("brand-video-generator", "elements-composition"),
        ("non-skill folders and a README beside the skills", "OS junk (.DS_Store)"),
    )


def all_collections() -> tuple[Collection, ...]:
    """The seven shapes, in the order the issue names them."""
    return (anthropics(), vercel(), superpowers(), k_dense(), openai(), uipath(), editframe())
