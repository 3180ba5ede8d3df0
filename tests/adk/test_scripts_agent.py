"""Scripts through a real agent: user confirmation, time limits and hostile paths."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from google.adk.agents import LlmAgent
from google.genai import types

from backends.testing import BackendHarness
from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import Conversation, ScriptedLlm, call, calls, one_turn, responses, say
from tests.adk.skills import TREE, flat

LOOP = {
    "SKILL.md": "---\nname: spin\ndescription: Spins forever.\n---\nRun scripts/spin.py.\n",
    "scripts/spin.py": "while True:\n    pass\n",
}

CONFIRMATION = "adk_request_confirmation"


@pytest.fixture
async def catalog(harness: BackendHarness) -> SkillCatalog:
    return SkillCatalog(await harness.make_backend({**TREE, **flat("spin", LOOP)}))


@pytest.fixture
async def confirming(catalog: SkillCatalog) -> AsyncIterator[SkillsToolset]:
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(confirm=True))
    yield toolset
    await toolset.close()


def confirmation_reply(request_id: str, confirmed: bool) -> types.Content:
    response = types.FunctionResponse(
        id=request_id, name=CONFIRMATION, response={"confirmed": confirmed}
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


@pytest.mark.parametrize("confirmed", [True, False])
async def test_each_run_waits_for_the_user(confirming: SkillsToolset, confirmed: bool) -> None:
    run = call("run_skill_script", skill_name="pdf", file_path="scripts/fill.py", args=["Ada"])
    model = ScriptedLlm(steps=[run, say("finished")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[confirming]))
    asked = await chat.send("fill it")

    pending = [args for name, args in calls(asked) if name == CONFIRMATION]
    assert len(pending) == 1
    hint = pending[0]["toolConfirmation"]["hint"]
    assert hint == "Run scripts/fill.py of skill pdf with arguments [Ada]?"
    assert dict(responses(asked))["run_skill_script"]["error_code"] == "CONFIRMATION_REQUIRED"
    assert len(model.requests) == 1  # the model waits; nothing ran

    request_id = next(c.id for e in asked for c in e.get_function_calls() if c.name == CONFIRMATION)
    assert request_id is not None
    answered = await chat.send(confirmation_reply(request_id, confirmed))
    await chat.close()

    result = dict(responses(answered))["run_skill_script"]
    if confirmed:
        assert result["stdout"] == "filled form for Ada\n"
    else:
        assert result["error_code"] == "CONFIRMATION_REJECTED"


async def test_runs_that_would_fail_are_not_put_to_the_user(confirming: SkillsToolset) -> None:
    run = call("run_skill_script", skill_name="pdf", file_path="scripts/missing.py")
    model = ScriptedLlm(steps=[run, say("no such script")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[confirming]))
    events = await chat.send("run it")
    await chat.close()
    assert CONFIRMATION not in [name for name, _ in calls(events)]
    assert dict(responses(events))["run_skill_script"]["error_code"] == "SCRIPT_NOT_FOUND"


async def test_endless_script_times_out_through_the_agent(catalog: SkillCatalog) -> None:
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(timeout=0.5))
    run = call("run_skill_script", skill_name="spin", file_path="scripts/spin.py")
    model = ScriptedLlm(steps=[run, say("it hung")])
    events = await one_turn(model, toolset, "spin")
    await toolset.close()
    result = dict(responses(events))["run_skill_script"]
    assert result["error_code"] == "SCRIPT_TIMEOUT"
    assert result["error"] == "the script ran past its 0.5 s limit and was killed"
    assert result["exit_code"] == -9  # SIGKILL: the run ended at its limit, not on its own


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("../notes/SKILL.md", "INVALID_PATH"),
        ("/bin/sh", "INVALID_PATH"),
        ("scripts/../../notes/x.py", "INVALID_PATH"),
        ("scripts/fill.py\x00.txt", "INVALID_PATH"),
        ("SKILL.md", "UNSUPPORTED_SCRIPT"),
    ],
)
async def test_hostile_script_paths_are_refused(
    catalog: SkillCatalog, path: str, code: str
) -> None:
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy())
    model = ScriptedLlm(
        steps=[call("run_skill_script", skill_name="pdf", file_path=path), say("refused")]
    )
    events = await one_turn(model, toolset, "run")
    await toolset.close()
    assert dict(responses(events))["run_skill_script"]["error_code"] == code
