"""The search_skills tool of the shared factory: ranked results, values for bad arguments."""

from __future__ import annotations

import pytest

from skills_core import _codes as codes
from skills_core.tools import SkillTools
from tests.context.catalogs import CODE_SEARCH, RELEASE_NOTES, Skills, catalog_of, skill


@pytest.fixture
async def tools() -> SkillTools:
    catalog = await catalog_of({"code-search": CODE_SEARCH, "release-notes": RELEASE_NOTES})
    return SkillTools(catalog)


async def test_search_skills_names_the_best_fits_first(tools: SkillTools) -> None:
    assert await tools.search_skills("find rust code") == {
        "query": "find rust code",
        "skills": [
            {
                "name": "code-search",
                "description": "Search Rust code with rg",
                "score": 0.21,
                "strength": "strong",
            }
        ],
    }
    assert await tools.search_skills("tell me a joke about penguins") == {
        "query": "tell me a joke about penguins",
        "skills": [],  # no word in common with any skill: the one empty answer
    }


async def test_a_loose_fit_is_a_weak_candidate_not_an_empty_answer(tools: SkillTools) -> None:
    found = await tools.search_skills("a joke about code")
    assert found["skills"] == [
        {
            "name": "code-search",
            "description": "Search Rust code with rg",
            "score": 0.142,
            "strength": "weak",
        }
    ]


async def test_limit_caps_the_results() -> None:
    catalog = await catalog_of({n: skill(n, "Fill PDF forms.", "Same.") for n in "abc"})
    found = await SkillTools(catalog).search_skills("pdf forms", limit=2)
    assert [entry["name"] for entry in found["skills"]] == ["a", "b"]


@pytest.mark.parametrize(
    ("query", "limit"),
    [("", 5), (None, 5), (3, 5), ("pdf", 0), ("pdf", 21), ("pdf", "5"), ("pdf", True)],
)
async def test_bad_arguments_are_error_values(
    tools: SkillTools, query: object, limit: object
) -> None:
    result = await tools.search_skills(query, limit)
    assert result["error_code"] == codes.INVALID_ARGUMENTS


async def test_the_next_call_sees_a_refresh() -> None:
    skills = Skills({"code-search": CODE_SEARCH})
    await skills.catalog.refresh()
    tools = SkillTools(skills.catalog)
    assert (await tools.search_skills("release notes"))["skills"] == []
    skills.put("release-notes", RELEASE_NOTES)
    await skills.catalog.refresh()
    names = [entry["name"] for entry in (await tools.search_skills("release notes"))["skills"]]
    assert names == ["release-notes"]
