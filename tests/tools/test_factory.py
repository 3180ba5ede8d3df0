"""The framework-neutral tools: list, load, read; every failure is a value with a code."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Sequence

import pytest

from backends import FileEntry, MemoryBackend
from backends.testing import LOGO, skill_md
from skills_core import Skill, SkillCatalog
from skills_core import _codes as codes
from skills_core.tools import LoadPolicy, SkillTools
from tests.tools.skillset import GUIDE, PDF_SKILL


@pytest.fixture
async def backend() -> MemoryBackend:
    return MemoryBackend({"pdf": PDF_SKILL, "beta": {"SKILL.md": skill_md("beta")}})


@pytest.fixture
async def tools(backend: MemoryBackend) -> SkillTools:
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    return SkillTools(catalog)


async def test_list_skills_names_and_describes_each(tools: SkillTools) -> None:
    assert await tools.list_skills() == {
        "skills": [
            {"name": "beta", "description": "A canonical test skill."},
            {"name": "pdf", "description": "Fill PDF forms."},
        ]
    }


async def test_load_skill_returns_body_location_and_files(tools: SkillTools) -> None:
    result = await tools.load_skill("pdf")
    assert result["skill_name"] == "pdf"
    assert result["instructions"].strip() == "# PDF\n\nUse the forms guide."
    assert result["base_location"] == "memory://pdf"
    assert "SKILL.md" not in result["files"]
    assert "references/forms.md" in result["files"]
    assert result["frontmatter"] == {"name": "pdf", "description": "Fill PDF forms."}


async def test_content_builder_shapes_the_instructions(backend: MemoryBackend) -> None:
    catalog = SkillCatalog(backend)
    await catalog.refresh()

    def build(skill: Skill) -> str:
        return f"[{skill.name}] {skill.body.strip()}"

    tools = SkillTools(catalog, loading=LoadPolicy(build_content=build))
    result = await tools.load_skill("pdf")
    assert result["instructions"] == "[pdf] # PDF\n\nUse the forms guide."


async def test_resources_come_back_as_text_or_flagged_binary(tools: SkillTools) -> None:
    text = await tools.load_skill_resource("pdf", "references/forms.md")
    assert text == {
        "skill_name": "pdf",
        "file_path": "references/forms.md",
        "size": len(GUIDE),
        "content": GUIDE,
    }
    binary = await tools.load_skill_resource("pdf", "assets/logo.png", as_bytes=True)
    assert binary["binary"] is True
    assert binary["mime_type"] == "image/png"
    assert base64.b64decode(binary["content_base64"]) == LOGO
    assert "content" not in binary


async def test_a_200_kb_image_is_a_short_description_unless_its_bytes_are_asked_for() -> None:
    """Issue #20.4: a 203 KB PNG was a 271,101-character base64 reply."""
    image = b"\x89PNG\r\n\x1a\n" + os.urandom(200 * 1024)
    catalog = SkillCatalog(MemoryBackend({"art": {"SKILL.md": skill_md("art"), "a.png": image}}))
    await catalog.refresh()
    tools = SkillTools(catalog)

    described = await tools.load_skill_resource("art", "a.png")
    asked = await tools.load_skill_resource("art", "a.png", as_bytes=True)

    assert len(json.dumps(described)) < 700
    assert described["delivery"] == "described"
    assert (described["kind"], described["mime_type"], described["size"]) == (
        "image",
        "image/png",
        len(image),
    )
    assert described["sha256"] == hashlib.sha256(image).hexdigest()
    assert "as_bytes=true" in described["note"]
    assert base64.b64decode(asked["content_base64"]) == image


async def test_oversize_resources_are_refused(backend: MemoryBackend) -> None:
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    tools = SkillTools(catalog, loading=LoadPolicy(max_resource_bytes=len(GUIDE) - 1))
    result = await tools.load_skill_resource("pdf", "references/forms.md")
    assert result["error_code"] == codes.RESOURCE_TOO_LARGE


@pytest.mark.parametrize(
    ("skill_name", "file_path", "code"),
    [
        ("missing", "references/forms.md", codes.SKILL_NOT_FOUND),
        ("pdf", "references/missing.md", codes.RESOURCE_NOT_FOUND),
        ("pdf", "../beta/SKILL.md", codes.INVALID_PATH),
        ("pdf", "/etc/passwd", codes.INVALID_PATH),
        ("pdf", "references\\..\\..\\beta", codes.INVALID_PATH),
        ("../pdf", "SKILL.md", codes.SKILL_NOT_FOUND),
        ("pdf", "", codes.INVALID_ARGUMENTS),
        ("", "SKILL.md", codes.INVALID_ARGUMENTS),
        (None, "SKILL.md", codes.INVALID_ARGUMENTS),
    ],
)
async def test_read_failures_are_values_with_codes(
    tools: SkillTools, skill_name: str, file_path: str, code: str
) -> None:
    result = await tools.load_skill_resource(skill_name, file_path)
    assert result["error_code"] == code
    assert result["error"]


@pytest.mark.parametrize("limit", [0, 21, 2.5, True, "3", None])
async def test_search_limit_outside_1_to_20_is_refused(tools: SkillTools, limit: object) -> None:
    result = await tools.search_skills("pdf forms", limit)
    assert result["error_code"] == codes.INVALID_ARGUMENTS
    assert "limit" in result["error"]


async def test_search_limit_may_come_as_a_whole_float(tools: SkillTools) -> None:
    result = await tools.search_skills("pdf forms", 1.0)
    assert [skill["name"] for skill in result["skills"]] == ["pdf"]


async def test_missing_skill_is_a_value(tools: SkillTools) -> None:
    result = await tools.load_skill("missing")
    assert result["error_code"] == codes.SKILL_NOT_FOUND
    assert "missing" in result["error"]


async def test_unexpected_failures_never_raise_out_of_a_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(MemoryBackend):
        async def files(self, name: str) -> Sequence[FileEntry]:
            raise RuntimeError("disk on fire")

    catalog = SkillCatalog(Broken({"pdf": PDF_SKILL}))
    await catalog.refresh()
    result = await SkillTools(catalog).load_skill("pdf")
    assert result["error_code"] == codes.INTERNAL_ERROR
    assert "disk on fire" in result["error"]
    assert "disk on fire" in caplog.text


async def test_tools_see_each_refresh(backend: MemoryBackend, tools: SkillTools) -> None:
    backend.put("gamma", {"SKILL.md": skill_md("gamma")})
    backend.remove("beta")
    await tools.catalog.refresh()
    names = [skill["name"] for skill in (await tools.list_skills())["skills"]]
    assert names == ["gamma", "pdf"]
    assert (await tools.load_skill("beta"))["error_code"] == codes.SKILL_NOT_FOUND
