"""SkillsToolset within a budget, in a real runner: what the model is shown and told."""

from __future__ import annotations

import pytest
from google.adk.agents import LlmAgent

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import Listing, Prompts, SkillsToolset, ToolNames
from skills_core.adk._handlers import CONTEXT_PATH_KEY
from tests.adk.scripted import (
    Conversation,
    ScriptedLlm,
    call,
    declarations,
    one_turn,
    responses,
    say,
    system_text,
)
from tests.context.lookalikes import lookalike_catalog, named_in

DESCRIPTION = (
    "Turns raw survey exports into tidy tables, charts and a short written summary of what "
    "changed since the last wave. Use when a user uploads survey results."
)


async def make_catalog() -> SkillCatalog:
    skills = {
        f"survey-{index:02d}": {
            "SKILL.md": f"---\nname: survey-{index:02d}\ndescription: {DESCRIPTION}\n---\nSteps.\n"
        }
        for index in range(30)
    }
    skills["python-style"] = {
        "SKILL.md": "---\nname: python-style\ndescription: Python style rules.\n"
        "paths: ['*.py']\n---\nUse ruff.\n"
    }
    catalog = SkillCatalog(MemoryBackend(skills))
    await catalog.refresh()
    return catalog


async def test_a_lazy_listing_over_budget_lists_names_and_offers_search() -> None:
    catalog = await make_catalog()
    model = ScriptedLlm(
        steps=[call("list_skills"), call("search_skills", query="python style"), say("ok")]
    )
    toolset = SkillsToolset(catalog, listing=Listing(budget=1_200), refresh_every=None)
    agent = LlmAgent(name="assistant", model=model, tools=[toolset])
    chat = Conversation(agent)
    events = await chat.send("Which skills are there?")
    await chat.close()

    assert set(declarations(model.requests[0])) == {
        "list_skills",
        "load_skill",
        "load_skill_resource",
        "search_skills",
    }
    assert "Call `search_skills`" in system_text(model.requests[0])
    listing = dict(responses(events))["list_skills"]
    assert listing["total"] == 31  # no context path set: paths-conditional skills count too
    assert listing["lines"][:2] == [
        "python-style: Python style rules.",
        "survey-00: Turns raw survey exports into tidy…",
    ]
    assert listing["names"].startswith("survey-")
    assert len(listing["lines"]) + len(listing["names"].split(", ")) == 31
    assert listing["note"].endswith(
        "by name only: call `search_skills` with key words of a request to see which fit it, "
        "with their descriptions."
    )
    found = dict(responses(events))["search_skills"]["skills"]
    assert found[0]["name"] == "python-style"


async def test_the_notes_name_the_tools_as_renamed_and_a_listing_takes_no_names() -> None:
    catalog = await make_catalog()
    model = ScriptedLlm(steps=[call("list_skills"), say("ok")])
    names = ToolNames(search_skills="find", load_skill="open")
    toolset = SkillsToolset(
        catalog, listing=Listing(budget=300), prompts=Prompts(names=names), refresh_every=None
    )
    events = await one_turn(model, toolset, "Which skills are there?")

    assert {"find", "open"} <= set(declarations(model.requests[0]))
    note = dict(responses(events))["list_skills"]["note"]
    assert "call `find` with key words" in note
    with pytest.raises(TypeError):  # once dropped without a word: the toolset overwrote them
        Listing(search_tool="find", load_tool="open")  # type: ignore[call-arg]


async def test_an_eager_catalog_over_budget_says_how_many_and_how_to_find_them() -> None:
    catalog = await make_catalog()
    model = ScriptedLlm(steps=[say("ok")])
    toolset = SkillsToolset(
        catalog,
        listing=Listing(discovery="eager", budget=300),
        tool_name_prefix="skills",
        refresh_every=None,
    )
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    session = await chat.runner.session_service.create_session(
        app_name="skillfs-tests", user_id="user", state={CONTEXT_PATH_KEY: "src/lib.rs"}
    )
    chat.session_id = session.id
    await chat.send("Hello")
    await chat.close()

    assert "skills_list_skills" not in declarations(model.requests[0])
    assert (  # python-style applies to *.py files: not to the file worked on
        "30 skills available; 7 listed by name, the other 23 not, to fit the context: call "
        "`skills_search_skills` with key words of a request to find the ones that fit it.\n"
        "</note>\nsurvey-00, survey-01, survey-02, survey-03, survey-04, survey-05, survey-06\n"
    ) in system_text(model.requests[0])


@pytest.mark.parametrize(
    ("count", "size", "note"),
    [
        (134, 7_988, "134 skills available, all listed as `name: description`, descriptions cut"),
        (210, 7_994, "210 skills available, all listed to fit the context: the first 122 as"),
    ],
)
async def test_an_eager_catalog_names_every_skill_at_8000(count: int, size: int, note: str) -> None:
    catalog = await lookalike_catalog(count)
    model = ScriptedLlm(steps=[say("ok")])
    toolset = SkillsToolset(
        catalog, listing=Listing(discovery="eager", budget=8_000), refresh_every=None
    )
    await one_turn(model, toolset, "Hello")

    instruction = system_text(model.requests[0])
    block = instruction[instruction.index("<available_skills>") :]
    assert len(block) == size
    assert named_in(block) == [meta.name for meta in catalog.list()]
    assert f"<note>\n{note}" in block
    assert "search_skills" in declarations(model.requests[0])


async def test_without_a_budget_nothing_changes() -> None:
    catalog = await make_catalog()
    model = ScriptedLlm(steps=[call("list_skills"), say("ok")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[SkillsToolset(catalog)]))
    events = await chat.send("List")
    await chat.close()

    assert "search_skills" not in declarations(model.requests[0])
    listing = dict(responses(events))["list_skills"]
    assert set(listing) == {"skills"}
    assert len(listing["skills"]) == 31
