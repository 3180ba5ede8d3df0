"""Catalogs within a budget: visible degradation, never a silently dropped skill."""

from __future__ import annotations

import json

import pytest

from backends import MemoryBackend
from skills_core import SkillCatalog, SkillMetadata
from skills_core.context.budget import (
    MIN_DESCRIPTION_CHARS,
    FittedCatalog,
    ListingPolicy,
    SkillFilter,
    catalog_prompt,
    fit_catalog,
    shorten,
    skills_listing,
)
from skills_core.tools.factory import SkillTools


def skill_md(name: str, description: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody of {name}.\n"


DESCRIPTION = (
    "Turns raw survey exports into tidy tables, charts and a short written summary of what "
    "changed since the last wave. Use when a user uploads survey results."
)


async def catalog_of(count: int, extra: str = "") -> SkillCatalog:
    names = [f"skill-{index:03d}" for index in range(count)]
    catalog = SkillCatalog(
        MemoryBackend({name: {"SKILL.md": skill_md(name, DESCRIPTION, extra)} for name in names})
    )
    await catalog.refresh()
    return catalog


def test_shorten_cuts_at_a_word_and_marks_it() -> None:
    assert shorten("short enough", 40) == "short enough"
    assert shorten(DESCRIPTION, 40) == "Turns raw survey exports into tidy…"
    assert len(shorten(DESCRIPTION, 40)) <= 40
    assert shorten("x" * 100, 10) == "x" * 9 + "…"  # no space near the end: a hard cut


async def test_a_catalog_that_fits_is_the_unbudgeted_block() -> None:
    catalog = await catalog_of(3)
    assert catalog_prompt(catalog, budget=10_000) == catalog.to_prompt()
    assert "<note>" not in catalog_prompt(catalog, budget=10_000)


async def test_each_tier_in_turn_with_its_note() -> None:
    catalog = await catalog_of(20)
    full = len(catalog.to_prompt(include_location=False))
    assert full == 4_558

    short = catalog_prompt(catalog, include_location=False, budget=3_000)
    assert len(short) <= 3_000
    assert short.count("<skill>") == 20
    assert (
        "<note>\n20 skills available, all listed; descriptions are cut to at most 70 characters "
        "to fit the context: `load_skill` gives the full description and instructions of a "
        "skill.\n</note>"
    ) in short
    assert (
        "<description>\nTurns raw survey exports into tidy tables, charts and a short…\n" in short
    )

    names = catalog_prompt(catalog, include_location=False, budget=1_500)
    assert names.count("<skill>") == 20
    assert "<description>" not in names
    assert (
        "20 skills available, listed by name only to fit the context: call `search_skills` "
        "with key words of a request to see which fit it, with their descriptions."
    ) in names

    count = catalog_prompt(catalog, include_location=False, budget=500)
    assert count == (
        "<available_skills>\n<note>\n20 skills available; none is listed, to fit the context: "
        "call `search_skills` with key words of a request to find the ones that fit it.\n"
        "</note>\n</available_skills>"
    )


async def test_without_a_search_tool_names_are_the_floor() -> None:
    catalog = await catalog_of(20)
    names = catalog_prompt(catalog, include_location=False, budget=10, search_tool=None)
    assert names.count("<skill>") == 20  # over budget, but nothing dropped
    assert "`load_skill` gives the description and instructions of a skill." in names


def test_the_longest_cut_that_fits_is_chosen() -> None:
    skills = [SkillMetadata(f"s{index}", DESCRIPTION) for index in range(10)]

    def measure(fitted: FittedCatalog) -> int:
        return sum(len(name) + len(text or "") for name, text in fitted.shown())

    fitted = fit_catalog(skills, 1_000, measure)
    assert fitted.tier == "short"
    assert fitted.description_chars is not None
    assert measure(fitted) <= 1_000
    longer = FittedCatalog("short", fitted.skills, fitted.description_chars + 1)
    assert measure(longer) > 1_000
    assert fitted.description_chars >= MIN_DESCRIPTION_CHARS
    with pytest.raises(ValueError, match="budget must be 0 or more"):
        fit_catalog(skills, -1, measure)


def test_a_listing_fits_its_budget_as_json() -> None:
    skills = [SkillMetadata(f"s{index}", DESCRIPTION) for index in range(30)]
    assert skills_listing(skills) == {
        "skills": [{"name": f"s{index}", "description": DESCRIPTION} for index in range(30)]
    }
    for budget in (4_000, 1_000, 400):
        listing = skills_listing(skills, budget=budget)
        assert len(json.dumps(listing)) <= budget
        assert listing["total"] == 30
    assert skills_listing(skills, budget=1_000)["skills"][0] == {"name": "s0"}
    assert skills_listing(skills, budget=400)["skills"] == []


async def test_filters_apply_before_the_budget() -> None:
    backend = MemoryBackend(
        {
            "python-style": {
                "SKILL.md": skill_md("python-style", "Python style.", "paths: ['*.py']\n")
            },
            "rust-style": {"SKILL.md": skill_md("rust-style", "Rust style.", "paths: ['*.rs']\n")},
            "release": {"SKILL.md": skill_md("release", "Releases.", "tags: [ops]\n")},
            "draft": {"SKILL.md": skill_md("draft", "Drafts.", "tags: [wip]\n")},
        }
    )
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    shown = SkillFilter(context_path="src/app.py", exclude_tags=["WIP"]).apply(catalog.list())
    assert [meta.name for meta in shown] == ["python-style", "release"]
    only_ops = SkillFilter(include_tags=["ops"]).apply(catalog.list())
    assert [meta.name for meta in only_ops] == ["release"]
    prompt = catalog_prompt(catalog, skill_filter=SkillFilter("lib.rs", exclude_tags=["wip"]))
    assert prompt.count("<skill>") == 2
    assert "rust-style" in prompt
    assert "python-style" not in prompt
    tools = SkillTools(catalog, listing=ListingPolicy(exclude_tags=["wip"]))
    result = await tools.list_skills(context_path="src/app.py")
    assert [item["name"] for item in result["skills"]] == ["python-style", "release"]
