"""Catalogs within a budget: visible degradation, every name kept while names fit."""

from __future__ import annotations

import json

import pytest

from backends import MemoryBackend
from skills_core import SkillCatalog, SkillMetadata
from skills_core.context._budget import (
    MIN_DESCRIPTION_CHARS,
    FittedCatalog,
    ListingPolicy,
    SkillFilter,
    catalog_prompt,
    fit_catalog,
    one_line,
    shorten,
    skills_listing,
)
from skills_core.tools._factory import SkillTools
from tests.context.lookalikes import lookalike_catalog, named_in, note_of


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
    assert one_line("Reads PDFs;\n  fills   forms.") == "Reads PDFs; fills forms."


async def test_a_catalog_that_fits_is_the_unbudgeted_block() -> None:
    catalog = await catalog_of(3)
    assert catalog_prompt(catalog, budget=10_000) == catalog.to_prompt()
    assert "<note>" not in catalog_prompt(catalog, budget=10_000)


async def test_each_form_in_turn_with_its_note() -> None:
    catalog = await catalog_of(20)
    every = [f"skill-{index:03d}" for index in range(20)]
    assert len(catalog.to_prompt(include_location=False)) == 4_558

    def fitted(budget: int) -> str:
        block = catalog_prompt(catalog, include_location=False, budget=budget)
        assert len(block) <= budget
        return block

    short = fitted(3_000)
    assert (len(short), named_in(short)) == (2_901, every)
    assert note_of(short) == (
        "20 skills available, all listed; descriptions are cut to at most 70 characters to "
        "fit the context: `load_skill` gives the full description and instructions of a skill."
    )
    assert (
        "<description>\nTurns raw survey exports into tidy tables, charts and a short…\n" in short
    )

    lines = fitted(2_000)
    assert (len(lines), named_in(lines)) == (1_880, every)
    assert "<skill>" not in lines
    assert (
        "\nskill-000: Turns raw survey exports into tidy tables, charts and a short written…\n"
        in lines
    )
    assert note_of(lines).startswith(
        "20 skills available, all listed as `name: description`, descriptions cut to at most "
        "78 characters to fit the context"
    )

    mixed = fitted(800)
    assert (len(mixed), named_in(mixed)) == (765, every)
    assert "\nskill-006: Turns raw survey exports into tidy…\nskill-007, skill-008, " in mixed
    assert note_of(mixed) == (
        "20 skills available, all listed to fit the context: the first 7 as `name: "
        "description` (cut to at most 40 characters), the other 13 by name only: call "
        "`search_skills` with key words of a request to see which fit it, with their "
        "descriptions."
    )

    names = fitted(500)
    assert (len(names), named_in(names)) == (428, every)
    assert f"\n{', '.join(every)}\n</available_skills>" in names
    assert note_of(names) == (
        "20 skills available, listed by name only to fit the context: call `search_skills` "
        "with key words of a request to see which fit it, with their descriptions."
    )

    some = fitted(300)
    assert (len(some), named_in(some)) == (296, every[:8])
    assert note_of(some) == (
        "20 skills available; 8 listed by name, the other 12 not, to fit the context: call "
        "`search_skills` with key words of a request to find the ones that fit it."
    )

    with pytest.warns(
        UserWarning, match="a budget of 100"
    ) as warned:  # under the smallest form: said, never silent
        count = catalog_prompt(catalog, include_location=False, budget=100)
    assert [str(warning.message) for warning in warned] == [
        "a budget of 100 characters is under the smallest form of 20 skills, 189 characters: "
        "that form is used, over the budget"
    ]
    assert count == (
        "<available_skills>\n<note>\n20 skills available; none is listed, to fit the context: "
        "call `search_skills` with key words of a request to find the ones that fit it.\n"
        "</note>\n</available_skills>"
    )


@pytest.mark.parametrize("include_location", [True, False])
async def test_134_lookalike_skills_are_all_named_and_described_at_8000(
    include_location: bool,
) -> None:
    catalog = await lookalike_catalog(134)
    assert len(catalog.to_prompt(include_location=include_location)) in (56_919, 49_504)
    block = catalog_prompt(catalog, include_location=include_location, budget=8_000)
    assert len(block) == 7_988
    assert named_in(block) == [meta.name for meta in catalog.list()]
    assert "<location>" not in block  # locations go before names do
    assert note_of(block).startswith(
        "134 skills available, all listed as `name: description`, descriptions cut to at "
        "most 45 characters"
    )


async def test_210_lookalike_skills_are_all_named_at_8000() -> None:
    catalog = await lookalike_catalog(210)
    block = catalog_prompt(catalog, budget=8_000)
    assert len(block) == 7_994
    assert named_in(block) == [meta.name for meta in catalog.list()]
    assert note_of(block).startswith(
        "210 skills available, all listed to fit the context: the first 122 as "
        "`name: description` (cut to at most 40 characters), the other 88 by name only"
    )


@pytest.mark.parametrize("count", [134, 210])
async def test_every_budget_is_spent_and_nothing_dropped_silently(count: int) -> None:
    catalog = await lookalike_catalog(count)
    whole = len(catalog.to_prompt())
    for budget in range(300, whole, 1_499):
        block = catalog_prompt(catalog, budget=budget)
        assert 0.9 * budget <= len(block) <= budget, budget  # no form leaves much unused
        shown = len(named_in(block))
        assert f"{count} skills available" in note_of(block)
        assert shown == count or f"the other {count - shown} not" in note_of(block)
        listing = skills_listing(catalog.list(), budget=budget)
        size = len(json.dumps(listing))
        assert size <= budget
        assert "note" not in listing or size >= 0.9 * budget, budget
        assert listing.get("total", len(listing.get("skills", ()))) == count


async def test_without_a_search_tool_names_are_the_floor() -> None:
    catalog = await catalog_of(20)
    with pytest.warns(UserWarning, match="a budget of 10 characters .* 397 characters"):
        names = catalog_prompt(catalog, include_location=False, budget=10, search_tool=None)
    assert named_in(names) == [f"skill-{index:03d}" for index in range(20)]  # over budget
    assert note_of(names) == (
        "20 skills available, listed by name only to fit the context: `load_skill` gives "
        "the description and instructions of a skill."
    )
    mixed = catalog_prompt(catalog, include_location=False, budget=800, search_tool=None)
    assert note_of(mixed).endswith(
        "the other 12 by name only: `load_skill` gives the description and instructions of a skill."
    )


def test_the_longest_cut_that_fits_is_chosen() -> None:
    skills = [SkillMetadata(f"s{index}", DESCRIPTION) for index in range(10)]

    def measure(fitted: FittedCatalog) -> int:
        shown = fitted.entries + fitted.lines
        return sum(len(name) + len(text) for name, text in shown) + len("".join(fitted.names))

    def fit(budget: int) -> FittedCatalog:
        return fit_catalog(skills, budget, measure, search_tool="find", load_tool="load")

    fitted = fit(1_000)
    assert fitted.tier == "short"
    assert fitted.description_chars is not None
    assert measure(fitted) <= 1_000
    longer = FittedCatalog("short", fitted.skills, fitted.description_chars + 1)
    assert measure(longer) > 1_000
    assert fitted.description_chars >= MIN_DESCRIPTION_CHARS
    assert (fit(300).tier, fit(300).listed, len(fit(300).names)) == ("lines", 8, 2)
    assert (fit(20).tier, fit(20).names) == ("names", [f"s{index}" for index in range(10)])
    assert (fit(10).tier, fit(10).names) == ("count", ["s0", "s1", "s2", "s3", "s4"])
    with pytest.raises(ValueError, match="budget must be 0 or more"):
        fit(-1)


def test_a_listing_fits_its_budget_as_json() -> None:
    skills = [SkillMetadata(f"s{index}", DESCRIPTION) for index in range(30)]
    every = [f"s{index}" for index in range(30)]
    assert skills_listing(skills) == {
        "skills": [{"name": name, "description": DESCRIPTION} for name in every]
    }
    for budget in (4_000, 2_000, 1_000, 400):
        listing = skills_listing(skills, budget=budget)
        assert len(json.dumps(listing)) <= budget
        assert listing["total"] == 30
    lines = skills_listing(skills, budget=2_000)
    assert set(lines) == {"lines", "total", "note"}
    assert lines["lines"][0] == "s0: Turns raw survey exports into tidy tables…"
    mixed = skills_listing(skills, budget=1_000)
    assert [line.split(":")[0] for line in mixed["lines"]] + mixed["names"].split(", ") == every
    assert skills_listing(skills, budget=400)["names"] == ", ".join(every)
    with pytest.warns(UserWarning, match="a budget of 100 characters"):
        assert set(skills_listing(skills, budget=100)) == {"total", "note"}


async def test_list_skills_names_all_134_lookalikes_at_8000() -> None:
    catalog = await lookalike_catalog(134)
    listing = await SkillTools(catalog, listing=ListingPolicy(budget=8_000)).list_skills()
    assert len(json.dumps(listing)) == 7_993
    named = [line.split(": ")[0] for line in listing["lines"]] + listing["names"].split(", ")
    assert named == [meta.name for meta in catalog.list()]
    assert listing["note"].startswith("134 skills available, all listed to fit the context")


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
    searching = SkillTools(catalog, listing=ListingPolicy(exclude_tags=["wip"], search=True))
    found = await searching.search_skills("drafts releases")
    assert [item["name"] for item in found["skills"]] == ["release"]  # search hides what lists do
