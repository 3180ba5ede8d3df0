"""What a real agent's model is shown stays cacheable: the same bytes while the catalog is
unchanged, and the earlier text as a prefix once skills are added."""

from __future__ import annotations

import json
import re
from itertools import pairwise
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.models import LlmRequest

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._tool_table import LOAD_SKILL
from skills_core.adk import Listing, SkillsToolset
from skills_core.adk._handlers import CONTEXT_PATH_KEY
from skills_core.adk._toolset import Discovery
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import Conversation, ScriptedLlm, declarations, say, system_text

CLOSING = "\n</available_skills>"


def skills(*names: str) -> dict[str, dict[str, bytes]]:
    return {name: {"SKILL.md": skill_md(name, f"Does {name} things.")} for name in names}


def shown(request: LlmRequest) -> tuple[str, str]:
    """The instruction and the tool declarations, as the bytes a provider would cache."""
    tools = {name: d.model_dump(exclude_none=True) for name, d in declarations(request).items()}
    return system_text(request), json.dumps(tools, sort_keys=True)


def skill_name_enum(request: LlmRequest) -> list[str]:
    schema: Any = declarations(request)[LOAD_SKILL].parameters_json_schema
    names: list[str] = schema["properties"]["skill_name"]["enum"]
    return names


async def requests_over_turns(
    discovery: Discovery, added: dict[int, list[str]], turns: int
) -> list[LlmRequest]:
    """One model request per turn; before turn ``n``, the skills ``added[n]`` are stored."""
    backend = MemoryBackend(skills("pdf", "zip-tools"))
    toolset = SkillsToolset(
        SkillCatalog(backend),
        refresh_every=0,
        scripts=ScriptPolicy(),
        listing=Listing(discovery=discovery, search=True),
    )
    model = ScriptedLlm(steps=[say("ok")] * turns)
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    for turn in range(turns):
        for name in added.get(turn, []):
            backend.put(name, skills(name)[name])
        await chat.send(f"turn {turn}")
    await chat.close()
    return list(model.requests)


@pytest.mark.parametrize("discovery", ["eager", "lazy"])
async def test_an_unchanged_catalog_shows_the_same_bytes_every_turn(
    discovery: Discovery,
) -> None:
    requests = await requests_over_turns(discovery, {}, turns=4)
    assert len({shown(request) for request in requests}) == 1


async def test_added_skills_are_appended_and_the_earlier_text_stays_a_prefix() -> None:
    requests = await requests_over_turns("eager", {1: ["memo"], 3: ["alpha", "notes"]}, turns=4)
    texts = [system_text(request) for request in requests]
    assert texts[1] == texts[2]
    for before, after in pairwise(texts):
        assert before.endswith(CLOSING)
        assert after.startswith(before.removesuffix(CLOSING))
    first_shown = ["pdf", "zip-tools", "memo", "alpha", "notes"]
    assert re.findall(r"<name>\n(.*)\n</name>", texts[3]) == first_shown
    enums = [skill_name_enum(request) for request in requests]
    assert enums[-1] == first_shown
    assert all(after[: len(before)] == before for before, after in pairwise(enums))


async def test_lazy_discovery_keeps_the_instruction_whatever_is_added() -> None:
    requests = await requests_over_turns("lazy", {1: ["memo"], 2: ["alpha"]}, turns=3)
    assert len({system_text(request) for request in requests}) == 1


async def test_the_instruction_and_the_enum_list_skills_in_one_order() -> None:
    style = b"---\nname: style\ndescription: Does style things.\npaths: ['*.md']\n---\n"
    backend = MemoryBackend({**skills("pdf"), "style": {"SKILL.md": style}})
    toolset = SkillsToolset(
        SkillCatalog(backend), refresh_every=0, listing=Listing(discovery="eager")
    )
    model = ScriptedLlm(steps=[say("ok")] * 2)
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    await chat.send("turn 0", state_delta={CONTEXT_PATH_KEY: "main.py"})  # style: not listed
    backend.put("alpha", skills("alpha")["alpha"])
    await chat.send("turn 1", state_delta={CONTEXT_PATH_KEY: "README.md"})  # style: listed
    await chat.close()

    first, second = model.requests
    assert re.findall(r"<name>\n(.*)\n</name>", system_text(first)) == ["pdf"]
    assert skill_name_enum(first) == ["pdf", "style"]
    listed = re.findall(r"<name>\n(.*)\n</name>", system_text(second))
    assert listed == skill_name_enum(second) == ["pdf", "style", "alpha"]
