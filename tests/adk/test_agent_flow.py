"""A real LlmAgent + InMemoryRunner, driven by a scripted model, uses skills end to end."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from google.adk.agents import LlmAgent
from google.adk.models import LlmRequest
from google.genai import types

from backends.testing import BackendHarness, skill_md
from skills_core import SkillCatalog
from skills_core.adk import Listing, SkillsToolset
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import (
    Conversation,
    ScriptedLlm,
    call,
    calls,
    declarations,
    final_text,
    last_response,
    responses,
    say,
    system_text,
)
from tests.adk.skills import FORM_GUIDE, TREE


@pytest.fixture
async def catalog(harness: BackendHarness) -> SkillCatalog:
    return SkillCatalog(await harness.make_backend(TREE))


@pytest.fixture
async def toolset(catalog: SkillCatalog) -> AsyncIterator[SkillsToolset]:
    toolset = SkillsToolset(catalog, refresh_every=0, scripts=ScriptPolicy(timeout=10))
    yield toolset
    await toolset.close()


def answer_with_script_output(request: LlmRequest) -> types.Part:
    return say("Done: " + last_response(request, "run_skill_script")["stdout"].strip())


async def test_list_load_read_run_answer(toolset: SkillsToolset) -> None:
    model = ScriptedLlm(
        steps=[
            call("list_skills"),
            call("load_skill", skill_name="pdf"),
            call("load_skill_resource", skill_name="pdf", file_path="references/forms.md"),
            call("run_skill_script", skill_name="pdf", file_path="scripts/fill.py", args=["Ada"]),
            answer_with_script_output,
        ]
    )
    agent = LlmAgent(name="assistant", model=model, instruction="Help.", tools=[toolset])
    chat = Conversation(agent)
    events = await chat.send("Fill the form for Ada.")
    await chat.close()

    assert [name for name, _ in calls(events)] == [
        "list_skills",
        "load_skill",
        "load_skill_resource",
        "run_skill_script",
    ]
    results = dict(responses(events))
    assert results["list_skills"] == {
        "skills": [
            {"name": "notes", "description": "Take meeting notes."},
            {"name": "pdf", "description": "Fill PDF forms."},
        ]
    }
    assert results["load_skill"]["instructions"].startswith("# PDF")
    assert results["load_skill"]["files"] == ["references/forms.md", "scripts/fill.py"]
    assert results["load_skill_resource"]["content"] == FORM_GUIDE
    assert results["run_skill_script"]["stdout"] == "filled form for Ada\n"
    assert results["run_skill_script"]["exit_code"] == 0
    assert final_text(events) == "Done: filled form for Ada"

    first = model.requests[0]
    shown = declarations(first)
    assert sorted(shown) == [
        "list_skills",
        "load_skill",
        "load_skill_resource",
        "run_skill_script",
    ]
    schema = shown["load_skill_resource"].parameters_json_schema
    assert schema["required"] == ["skill_name", "file_path"]
    assert set(shown["run_skill_script"].parameters_json_schema["properties"]) == {
        "skill_name",
        "file_path",
        "args",
    }
    instruction = system_text(first)
    assert instruction.startswith("Help.")
    assert "`list_skills`" in instruction
    assert "`run_skill_script`" in instruction
    assert "<available_skills>" not in instruction  # lazy: the catalog comes from list_skills
    assert len(model.requests) == 5


async def test_scripts_are_not_offered_unless_enabled(catalog: SkillCatalog) -> None:
    model = ScriptedLlm(steps=[say("hi")])
    agent = LlmAgent(name="assistant", model=model, tools=[SkillsToolset(catalog)])
    chat = Conversation(agent)
    await chat.send("hello")
    await chat.close()
    assert "run_skill_script" not in declarations(model.requests[0])
    assert "cannot be run here" in system_text(model.requests[0])


async def test_skill_added_between_turns_is_visible(
    harness: BackendHarness, toolset: SkillsToolset
) -> None:
    model = ScriptedLlm(steps=[call("list_skills"), say("listed")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    await chat.send("what can you do?")

    await harness.write("weather/SKILL.md", skill_md("weather", "Forecast the weather."))
    await harness.write("weather/scripts/forecast.py", b"print('sunny')\n")
    model.steps += [
        call("list_skills"),
        call("load_skill", skill_name="weather"),
        call("run_skill_script", skill_name="weather", file_path="scripts/forecast.py"),
        say("sunny"),
    ]
    events = await chat.send("and now?")
    await chat.close()

    results = dict(responses(events))
    assert [skill["name"] for skill in results["list_skills"]["skills"]] == [
        "notes",
        "pdf",
        "weather",
    ]
    assert results["load_skill"]["files"] == ["scripts/forecast.py"]
    assert results["run_skill_script"]["stdout"] == "sunny\n"


async def test_skill_removed_between_turns_is_not_found(
    harness: BackendHarness, toolset: SkillsToolset
) -> None:
    def run() -> types.Part:
        return call("run_skill_script", skill_name="pdf", file_path="scripts/fill.py")

    model = ScriptedLlm(steps=[run(), say("filled")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    first = await chat.send("fill the form")
    assert dict(responses(first))["run_skill_script"]["exit_code"] == 0

    await harness.delete_skill("pdf")
    model.steps += [
        call("list_skills"),
        call("load_skill", skill_name="pdf"),
        call("load_skill_resource", skill_name="pdf", file_path="references/forms.md"),
        run(),
        say("gone"),
    ]
    events = await chat.send("and again?")
    await chat.close()

    results = dict(responses(events))
    assert [skill["name"] for skill in results.pop("list_skills")["skills"]] == ["notes"]
    assert {name: result["error_code"] for name, result in results.items()} == {
        "load_skill": "SKILL_NOT_FOUND",
        "load_skill_resource": "SKILL_NOT_FOUND",
        "run_skill_script": "SKILL_NOT_FOUND",
    }


async def test_eager_discovery_puts_the_current_catalog_in_the_instruction(
    harness: BackendHarness, catalog: SkillCatalog
) -> None:
    toolset = SkillsToolset(catalog, listing=Listing(discovery="eager"), refresh_every=0)
    model = ScriptedLlm(steps=[say("one")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    await chat.send("hi")
    await harness.write("weather/SKILL.md", skill_md("weather", "Forecast <the> weather."))
    model.steps.append(say("two"))
    await chat.send("hi again")
    await chat.close()

    first, second = (system_text(request) for request in model.requests)
    assert "list_skills" not in declarations(model.requests[0])
    assert "<name>\npdf\n</name>" in first
    assert "weather" not in first
    assert "Forecast &lt;the&gt; weather." in second  # escaped, and there on the next turn
    assert "Call `list_skills`" not in second
