"""A real agent is never shown a user-only skill, yet loads it by name when the user asks."""

from __future__ import annotations

import pytest

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import Listing, SkillsToolset
from skills_core.adk._toolset import Discovery
from tests.adk.scripted import (
    ScriptedLlm,
    call,
    declarations,
    one_turn,
    responses,
    say,
    system_text,
)
from tests.context.test_user_only import SKILLS


@pytest.mark.parametrize("discovery", ["eager", "lazy"])
async def test_hidden_from_the_instruction_and_tools_but_loadable_by_name(
    discovery: Discovery,
) -> None:
    catalog = SkillCatalog(MemoryBackend(SKILLS))
    toolset = SkillsToolset(catalog, listing=Listing(discovery=discovery, search=True))
    listed = [call("list_skills")] if discovery == "lazy" else []
    model = ScriptedLlm(
        steps=[
            *listed,
            call("search_skills", query="deploy to production"),
            call("load_skill", skill_name="deploy-prod"),
            say("deployed"),
        ]
    )
    events = await one_turn(model, toolset, "Use the deploy-prod skill to deploy to production.")
    found = dict(responses(events))
    assert [skill["name"] for skill in found["search_skills"]["skills"]] == []
    assert "Run the release pipeline." in found["load_skill"]["instructions"]
    for request in model.requests:
        assert "deploy-prod" not in system_text(request)
        shown = declarations(request).values()
        assert all("deploy-prod" not in str(d.model_dump()) for d in shown)
    if discovery == "eager":
        assert "release-notes" in system_text(model.requests[0])
    else:
        assert [skill["name"] for skill in found["list_skills"]["skills"]] == ["release-notes"]
