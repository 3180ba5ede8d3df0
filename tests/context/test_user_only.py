"""``disable-model-invocation: true``: hidden from catalog, listing and search; loads by name."""

from __future__ import annotations

import pytest

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.context._budget import catalog_prompt
from skills_core.context._search import rank_skills
from skills_core.context._selection import SelectionPolicy, Selector, SkillMatch, select_skills
from skills_core.context._turns import (
    ContextCoordinator,
    CoordinatorConfig,
    ToolMap,
    select_skill_prompt_block,
)
from skills_core.tools import SkillTools

DEPLOY = (
    b"---\nname: deploy-prod\ndescription: Deploy the release to production.\n"
    b"disable-model-invocation: true\n---\n# Deploy\n\nRun the release pipeline.\n"
)

SKILLS = {
    "deploy-prod": {"SKILL.md": DEPLOY},
    "release-notes": {"SKILL.md": skill_md("release-notes", "Draft release notes.")},
}


async def catalog() -> SkillCatalog:
    skills = SkillCatalog(MemoryBackend(SKILLS))
    await skills.refresh()
    return skills


async def test_the_catalog_prompt_leaves_it_out_at_every_budget() -> None:
    skills = await catalog()
    for budget in (None, 200):
        assert "deploy-prod" not in catalog_prompt(skills, budget=budget)
    with pytest.warns(UserWarning, match="a budget of 10 characters"):
        prompt = catalog_prompt(skills, budget=10)
    assert "deploy-prod" not in prompt
    assert "1 skill available" in prompt
    assert "release-notes" in catalog_prompt(skills)


async def test_list_and_search_leave_it_out_and_load_skill_still_loads_it() -> None:
    skills = await catalog()
    tools = SkillTools(skills)
    listed = await tools.list_skills()
    assert [skill["name"] for skill in listed["skills"]] == ["release-notes"]
    found = await tools.search_skills("deploy the release to production")
    assert [skill["name"] for skill in found["skills"]] == ["release-notes"]
    assert [match.name for match in rank_skills(skills, "deploy production")] == []
    loaded = await tools.load_skill("deploy-prod")
    assert loaded["instructions"].strip() == "# Deploy\n\nRun the release pipeline."
    assert loaded["frontmatter"]["disable-model-invocation"] is True


async def test_the_catalogs_own_prompt_leaves_it_out_too() -> None:
    skills = await catalog()
    assert "deploy-prod" not in skills.to_prompt()
    assert "release-notes" in skills.to_prompt(include_location=False)


def every_skill(
    catalog: SkillCatalog, query: str, policy: SelectionPolicy | None
) -> list[SkillMatch]:
    """A user's own selector: every loaded skill, by name, whatever the query."""
    return [
        SkillMatch(name, 1.0, entry.location, entry.metadata)
        for name, entry in catalog.snapshot.loaded.items()
        if entry.metadata is not None
    ]


@pytest.mark.parametrize("selector", [rank_skills, select_skills, every_skill])
async def test_no_selector_hands_it_to_injection_or_the_coordinator(selector: Selector) -> None:
    skills = await catalog()
    policy = SelectionPolicy(top_k=2, min_score=0.0001)
    if selector is not every_skill:
        assert "deploy-prod" not in [m.name for m in selector(skills, "deploy production", policy)]
    block = select_skill_prompt_block(skills, "deploy production", policy, selector=selector)
    assert block is None or block[0].name == "release-notes"
    config = CoordinatorConfig(policy=policy, selector=selector)
    context = ContextCoordinator(skills, ToolMap([]), config).build_context("deploy production")
    assert context is None or context.skill_name == "release-notes"


@pytest.mark.parametrize("selector", [rank_skills, select_skills])
async def test_a_skill_made_user_only_leaves_the_selectors_and_comes_back(
    selector: Selector,
) -> None:
    backend = MemoryBackend(SKILLS)
    skills = SkillCatalog(backend)
    policy = SelectionPolicy(top_k=2, min_score=0.0001)

    async def found(notes: bytes) -> list[str]:
        backend.put("release-notes", {"SKILL.md": notes})
        await skills.refresh()
        return [match.name for match in selector(skills, "draft release notes", policy)]

    notes = skill_md("release-notes", "Draft release notes.")
    hidden = notes.replace(b"---\n#", b"disable-model-invocation: true\n---\n#")
    assert await found(notes) == ["release-notes"]
    assert await found(hidden) == []
    assert await found(notes) == ["release-notes"]
