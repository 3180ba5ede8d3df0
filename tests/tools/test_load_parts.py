"""Issue #20.4: ``load_skill`` replies within a bound; the rest is reachable by part.

The 10 largest public skills replied with 38,707-77,133 characters at once. Now a reply is at
most ``max_load_chars`` (20,000 by default) JSON characters, lists the headings it left out,
and every character of the instructions is reachable by ``offset`` or ``section``.
"""

from __future__ import annotations

import json

import pytest

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.tools import LoadPolicy, SkillTools
from skills_core.tools._content import ToolResult, headings
from skills_core.tools._factory import DEFAULT_MAX_LOAD_CHARS
from tests.tools.long_skills import long_body, long_skills

NAMES = [f"long-{seed}" for seed in range(6)]


def size(reply: ToolResult) -> int:
    return len(json.dumps(reply, ensure_ascii=False))


@pytest.fixture
async def tools() -> SkillTools:
    catalog = SkillCatalog(long_skills())
    await catalog.refresh()
    return SkillTools(catalog)


async def read_all(tools: SkillTools, name: str, limit: int) -> tuple[str, int]:
    """Every part of a skill read by following ``next_offset``; the text and the call count."""
    reply = await tools.load_skill(name)
    text, calls = reply["instructions"], 1
    while "next_offset" in reply:
        assert size(reply) <= limit
        reply = await tools.load_skill(name, offset=reply["next_offset"])
        assert reply["offset"] == len(text)
        text += reply["instructions"]
        calls += 1
    assert size(reply) <= limit
    return text, calls


@pytest.mark.parametrize("name", NAMES)
async def test_every_character_is_reachable_by_reading_on(tools: SkillTools, name: str) -> None:
    whole = (await tools.load_skill(name, whole=True))["instructions"]
    assert 40_000 <= len(whole) <= 82_000
    first = await tools.load_skill(name)

    text, calls = await read_all(tools, name, DEFAULT_MAX_LOAD_CHARS)

    assert text == whole
    assert calls >= 3
    assert size(first) <= DEFAULT_MAX_LOAD_CHARS
    assert first["total_chars"] == len(whole)
    assert first["left_out_chars"] == len(whole) - len(first["instructions"])
    assert first["description"] == "A long skill."
    assert first["frontmatter"]["name"] == name
    later = [heading.line for heading in headings(whole) if heading.offset >= first["next_offset"]]
    assert first["sections"] == later
    assert f"{first['left_out_chars']:,} are left out" in first["note"]
    assert f"offset={first['next_offset']}" in first["note"]


@pytest.mark.parametrize("name", NAMES)
async def test_every_section_reads_within_the_bound(tools: SkillTools, name: str) -> None:
    whole = (await tools.load_skill(name, whole=True))["instructions"]
    for heading in headings(whole):
        reply = await tools.load_skill(name, section=heading.line)
        assert size(reply) <= DEFAULT_MAX_LOAD_CHARS
        assert reply["section"] == heading.line
        assert reply["offset"] == heading.offset
        assert whole.startswith(reply["instructions"], heading.offset)
        assert reply["instructions"].startswith(heading.line)


async def test_a_section_is_found_by_its_title_and_ends_at_the_next_peer(
    tools: SkillTools,
) -> None:
    whole = (await tools.load_skill("long-0", whole=True))["instructions"]
    found = headings(whole)
    second = next(heading for heading in found if heading.level == 2)
    peer = next(h for h in found if h.offset > second.offset and h.level <= 2)

    reply = await tools.load_skill("long-0", section=f"  {second.title.upper()} ")

    assert reply["instructions"] == whole[second.offset : peer.offset]
    assert "next_offset" not in reply


async def test_a_bound_is_settable_and_holds_for_every_part() -> None:
    catalog = SkillCatalog(long_skills(2))
    await catalog.refresh()
    tools = SkillTools(catalog, loading=LoadPolicy(max_load_chars=5_000))
    whole = (await tools.load_skill("long-1", whole=True))["instructions"]

    text, calls = await read_all(tools, "long-1", 5_000)

    assert text == whole
    assert calls >= len(whole) // 5_000


async def test_a_skill_that_fits_is_returned_whole_as_before() -> None:
    catalog = SkillCatalog(MemoryBackend({"small": {"SKILL.md": skill_md("small")}}))
    await catalog.refresh()

    reply = await SkillTools(catalog).load_skill("small")

    assert reply["instructions"] == "# small\n\nFollow these steps."
    assert not {"offset", "next_offset", "sections", "note"} & reply.keys()


async def test_thousands_of_headings_list_the_top_levels_and_count_the_rest() -> None:
    body = "".join(
        f"## Part {i}\n\n" + "".join(f"### Item {i}.{j}\n\ntext\n\n" for j in range(9))
        for i in range(250)
    )
    catalog = SkillCatalog(MemoryBackend({"many": {"SKILL.md": skill_md("many", "d", body)}}))
    await catalog.refresh()

    reply = await SkillTools(catalog).load_skill("many")

    assert size(reply) <= DEFAULT_MAX_LOAD_CHARS
    assert reply["sections"][-1] == "## Part 249"
    assert all(line.startswith("## ") for line in reply["sections"])
    listed, left_out = len(reply["sections"]), reply["sections_left_out"]
    assert listed + left_out == sum(1 for h in headings(body) if h.offset >= reply["next_offset"])
    assert f"{left_out} headings are not listed" in reply["note"]


async def test_a_repeated_heading_is_numbered_and_each_is_reachable() -> None:
    padding = "".join(f"Paragraph {i} of the introduction, kept long.\n\n" for i in range(80))
    body = (
        f"# Tool\n\n{padding}## Usage\n\nFirst usage.\n\n## Step #2\n\nA literal title.\n\n"
        "## Usage\n\nSecond usage.\n"
    )
    catalog = SkillCatalog(MemoryBackend({"tool": {"SKILL.md": skill_md("tool", "d", body)}}))
    await catalog.refresh()
    tools = SkillTools(catalog, loading=LoadPolicy(max_load_chars=2_000))

    first = await tools.load_skill("tool")
    second = await tools.load_skill("tool", section="## Usage#2")

    assert first["sections"][-3:] == ["## Usage", "## Step #2", "## Usage#2"]
    assert second["section"] == "## Usage#2"
    assert second["instructions"] == "## Usage\n\nSecond usage."
    assert (await tools.load_skill("tool", section="usage #2"))["offset"] == second["offset"]
    assert (await tools.load_skill("tool", section="Usage"))["instructions"] == (
        "## Usage\n\nFirst usage.\n\n"
    )
    literal = await tools.load_skill("tool", section="Step #2")
    assert literal["instructions"] == "## Step #2\n\nA literal title.\n\n"
    missing = await tools.load_skill("tool", section="Usage#3")
    assert missing["error_code"] == codes.SECTION_NOT_FOUND


async def test_a_wrong_section_or_offset_is_an_error_value(tools: SkillTools) -> None:
    missing = await tools.load_skill("long-0", section="No such heading")
    assert missing["error_code"] == codes.SECTION_NOT_FOUND
    assert missing["sections"][0] == "# Skill 0"
    for offset in (-1, 10**9, "12", True):
        bad = await tools.load_skill("long-0", offset=offset)
        assert bad["error_code"] == codes.INVALID_ARGUMENTS
    both = await tools.load_skill("long-0", section="Skill 0", offset=0)
    assert both["error_code"] == codes.INVALID_ARGUMENTS
    assert (await tools.load_skill("long-0", offset=100.0))["offset"] == 100


def test_generated_bodies_hold_fences_that_are_not_headings() -> None:
    body = long_body(3, 40_000)
    assert "# a comment, not a heading" in body
    assert not any("comment" in heading.line for heading in headings(body))
