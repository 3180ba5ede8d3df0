"""Issue #20.4 through a real agent: a long skill loads in parts the model can navigate.

A real ``LlmAgent`` on ``InMemoryRunner`` with a scripted model loads a 60 KB skill, gets a
bounded reply with the headings it left out, asks for one of those sections and gets it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.adk.models import LlmRequest
from google.genai import types

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.adk import Loading, SkillsToolset
from skills_core.tools import LoadPolicy
from skills_core.tools._content import find_section, headings
from skills_core.tools._factory import DEFAULT_MAX_LOAD_CHARS
from tests.adk.scripted import (
    ScriptedLlm,
    call,
    declarations,
    last_response,
    one_turn,
    responses,
    say,
)
from tests.tools.long_skills import long_body

BODY = long_body(11, 60_000)
SKILLS = {"atlas": {"SKILL.md": skill_md("atlas", "A long skill.", BODY)}}


def read_last_section(request: LlmRequest) -> types.Part:
    """Ask for the last heading the bounded reply listed."""
    reply = last_response(request, "load_skill")
    return call("load_skill", skill_name="atlas", section=reply["sections"][-1])


def read_on(request: LlmRequest) -> types.Part:
    reply = last_response(request, "load_skill")
    return call("load_skill", skill_name="atlas", offset=reply["offset"] + 10)


async def test_the_model_loads_a_long_skill_then_one_of_its_sections() -> None:
    model = ScriptedLlm(
        steps=[call("load_skill", skill_name="atlas"), read_last_section, read_on, say("done")]
    )
    toolset = SkillsToolset(SkillCatalog(MemoryBackend(SKILLS)))
    events = await one_turn(model, toolset, "Use atlas.")

    (_, first), (_, section), (_, later) = responses(events)
    body = BODY.strip()
    assert len(json.dumps(first, ensure_ascii=False)) <= DEFAULT_MAX_LOAD_CHARS
    assert body.startswith(first["instructions"])
    assert first["left_out_chars"] == len(body) - len(first["instructions"])
    assert first["sections"] == [h.line for h in headings(body) if h.offset >= first["next_offset"]]
    wanted = first["sections"][-1]
    match = find_section(headings(body), wanted, len(body))
    assert match is not None
    heading, end = match
    assert section["section"] == wanted
    assert section["instructions"] == body[heading.offset : end]
    assert body.startswith(later["instructions"], heading.offset + 10)
    load_skill = declarations(model.requests[0])["load_skill"]
    schema = load_skill.parameters_json_schema
    assert isinstance(schema, dict)
    assert {"section", "offset"} <= schema["properties"].keys()


@pytest.mark.parametrize("policy", [Loading, LoadPolicy])  # ADK's form, or the tools' own
async def test_the_toolset_takes_its_bound_from_loading(policy: type[LoadPolicy]) -> None:
    model = ScriptedLlm(steps=[call("load_skill", skill_name="atlas"), say("done")])
    toolset = SkillsToolset(
        SkillCatalog(MemoryBackend(SKILLS)), loading=policy(max_load_chars=4_000)
    )
    events = await one_turn(model, toolset, "Use atlas.")

    ((_, first),) = responses(events)
    assert len(json.dumps(first, ensure_ascii=False)) <= 4_000
    assert first["next_offset"] < 4_000


@pytest.mark.parametrize("part", [{}, {"offset": 10}, {"section": "any heading"}])
async def test_a_long_fork_skill_gives_its_sub_agent_the_whole_body(part: dict[str, Any]) -> None:
    fork = {"SKILL.md": f"---\nname: deep\ndescription: d\ncontext: fork\n---\n{BODY}".encode()}
    load = call("load_skill", skill_name="deep", **part)
    model = ScriptedLlm(steps=[load, say("sub"), say("done")])
    toolset = SkillsToolset(SkillCatalog(MemoryBackend({"deep": fork})))
    await one_turn(model, toolset, "Go deep.")

    sub_request = model.requests[1]  # whatever part was asked for, the sub-agent runs it whole
    (instruction,) = [part.text or "" for c in sub_request.contents for part in c.parts or []]
    assert instruction.startswith(BODY.strip())
