"""The skill-name argument a real agent's model is shown is an enum of the names it may give."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from google.adk.agents import LlmAgent

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._tool_table import (
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    MAX_ENUM_SKILLS,
    RUN_SKILL_SCRIPT,
)
from skills_core.adk import SkillsToolset
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import Conversation, ScriptedLlm, declarations, say
from tests.context.test_user_only import SKILLS

NAMED = (LOAD_SKILL, LOAD_SKILL_RESOURCE, RUN_SKILL_SCRIPT)


async def skill_name_schemas(
    skills: Mapping[str, Mapping[str, bytes]], turns: int = 1
) -> list[dict[str, dict[str, Any]]]:
    """Per turn, the ``skill_name`` schema of each tool taking one, as the model saw it."""
    backend = MemoryBackend(skills)
    toolset = SkillsToolset(SkillCatalog(backend), scripts=ScriptPolicy(), refresh_every=0)
    model = ScriptedLlm(steps=[say("ok")] * turns)
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    for turn in range(turns):
        if turn:
            backend.put(f"added-{turn}", {"SKILL.md": skill_md(f"added-{turn}")})
        await chat.send("hello")
    await chat.close()
    seen = []
    for request in model.requests:
        shown = declarations(request)
        seen.append(
            {
                name: (shown[name].parameters_json_schema or {})["properties"]["skill_name"]
                for name in NAMED
            }
        )
    return seen


async def test_the_names_a_model_may_give_and_only_those_follow_the_catalog() -> None:
    first, second = await skill_name_schemas(SKILLS, turns=2)
    for name in NAMED:
        assert first[name]["enum"] == ["release-notes"]  # not the user-only deploy-prod
        assert first[name]["type"] == "string"
        assert second[name]["enum"] == ["release-notes", "added-1"]  # added last: see caching


@pytest.mark.parametrize(("count", "enumerated"), [(MAX_ENUM_SKILLS, True), (201, False)])
async def test_only_a_catalog_of_at_most_200_skills_is_enumerated(
    count: int, enumerated: bool
) -> None:
    skills = {f"skill-{i:03}": {"SKILL.md": skill_md(f"skill-{i:03}")} for i in range(count)}
    [schemas] = await skill_name_schemas(skills)
    for name in NAMED:
        assert ("enum" in schemas[name]) is enumerated
        if enumerated:
            assert len(schemas[name]["enum"]) == MAX_ENUM_SKILLS
