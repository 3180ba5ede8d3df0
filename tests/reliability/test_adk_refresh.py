"""An ADK agent keeps its skill tools when a refresh fails (issue #8.2).

``get_tools`` refreshed without a guard: a raising refresh made ADK run the turn without any
skill tool, silently to the model. The catalog's refresh no longer raises for one bad skill,
and the toolset serves the last good catalog (logging why) whatever a refresh does.
"""

from __future__ import annotations

import logging

import pytest
from google.adk.agents import LlmAgent

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import ReloadReport, SkillCatalog
from skills_core.adk import SkillsToolset
from tests.adk.scripted import Conversation, ScriptedLlm, call, declarations, responses, say

SKILLS = {"pdf": {"SKILL.md": skill_md("pdf", "Fill PDF forms.", "Use the form.")}}
TOOLS = {"list_skills", "load_skill", "load_skill_resource"}
HUGE_NUMBER = f"---\nname: huge\ndescription: d\nversion: {'9' * 5000}\n---\nBody.\n"


async def second_turn_loads_pdf(toolset: SkillsToolset, before_second: object) -> ScriptedLlm:
    model = ScriptedLlm(steps=[say("one"), call("load_skill", skill_name="pdf"), say("done")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    await chat.send("first")
    before_second()  # type: ignore[operator]
    events = await chat.send("second")
    await chat.close()
    loaded = dict(responses(events))["load_skill"]
    assert loaded["instructions"] == "Use the form."
    return model


async def test_a_hostile_skill_added_between_turns_costs_no_tool() -> None:
    backend = MemoryBackend(SKILLS)
    toolset = SkillsToolset(SkillCatalog(backend), refresh_every=0)

    model = await second_turn_loads_pdf(
        toolset, lambda: backend.put("huge", {"SKILL.md": HUGE_NUMBER})
    )

    assert set(declarations(model.requests[1])) == TOOLS
    assert [meta.name for meta in toolset.catalog.list()] == ["pdf"]


class FailingCatalog(SkillCatalog):
    """A catalog (a subclass, a wrapper) whose refresh raises once armed."""

    armed = False

    async def refresh(self) -> ReloadReport:
        if self.armed:
            raise RuntimeError("the refresh blew up")
        return await super().refresh()


async def test_a_refresh_that_raises_serves_the_last_good_catalog(
    caplog: pytest.LogCaptureFixture,
) -> None:
    catalog = FailingCatalog(MemoryBackend(SKILLS))
    toolset = SkillsToolset(catalog, refresh_every=0)

    def arm() -> None:
        catalog.armed = True

    with caplog.at_level(logging.ERROR, logger="skillfs.tools"):
        model = await second_turn_loads_pdf(toolset, arm)

    assert set(declarations(model.requests[1])) == TOOLS
    [record] = [r for r in caplog.records if r.name == "skillfs.tools"]
    assert record.getMessage() == (
        "refreshing the skills of memory:// failed; serving the last good catalog"
    )
    assert record.exc_info is not None
