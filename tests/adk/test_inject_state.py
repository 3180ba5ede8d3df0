"""``metadata.adk_inject_state``: session state and artifacts filled into loaded skills.

A real LlmAgent and InMemoryRunner drive skillfs's SkillsToolset - and, for comparison,
google-adk's own SkillToolset - with the scripted model, over a memory backend.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.artifacts import InMemoryArtifactService
from google.adk.events import Event
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.skill_toolset import SkillToolset
from google.genai import types

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.adk import CatalogSkillRegistry, SkillsToolset
from skills_core.tools._content import tool_error
from tests.adk.scripted import ScriptedLlm, call, final_text, last_response, responses, say

APP, USER = "skillfs-tests", "user"

STATE: Mapping[str, Any] = {"user_name": "Ada", "user:team": "core", "tier": 3, "nothing": None}

PARITY_BODY = """\
Hello {user_name} of team {user:team}, tier {tier}. Nothing: [{nothing}].
Spaced { user_name }, doubled {{user_name}}, optional {user_name?}, absent [{absent?}].
Artifact: {artifact.notes.txt} / [{artifact.gone.txt?}]
Left as written: ${user_name} \\{user_name} {bad:key} {x + 1} {"a": 1} {:colon} {a:b:c}
"""
"""Every placeholder form google-adk knows, with every value present or optional."""


def skill(body: str, flag: str | None = "'true'", extra: str = "") -> dict[str, str]:
    metadata = f"metadata:\n  adk_inject_state: {flag}\n" if flag is not None else ""
    return {"SKILL.md": f"---\nname: greet\ndescription: Greets.\n{extra}{metadata}---\n{body}"}


class Chat:
    """One session, created with ``state`` and ``artifacts``, with an agent on ``toolset``."""

    def __init__(self, model: ScriptedLlm, toolset: BaseToolset, *, artifacts: bool) -> None:
        self.runner = Runner(
            app_name=APP,
            agent=LlmAgent(name="assistant", model=model, tools=[toolset]),
            session_service=InMemorySessionService(),
            artifact_service=InMemoryArtifactService() if artifacts else None,
        )
        self.session_id = ""

    async def start(
        self, state: Mapping[str, Any], artifacts: Mapping[str, types.Part] | None = None
    ) -> None:
        session = await self.runner.session_service.create_session(
            app_name=APP, user_id=USER, state=dict(state)
        )
        self.session_id = session.id
        for name, part in (artifacts or {}).items():
            assert self.runner.artifact_service is not None
            await self.runner.artifact_service.save_artifact(
                app_name=APP, user_id=USER, session_id=session.id, filename=name, artifact=part
            )

    async def send(self, text: str) -> list[Event]:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        return [
            event
            async for event in self.runner.run_async(
                user_id=USER, session_id=self.session_id, new_message=message
            )
        ]


@pytest.fixture
async def chats() -> AsyncIterator[list[Chat]]:
    """Chats opened by a test, closed after it."""
    opened: list[Chat] = []
    yield opened
    for chat in opened:
        await chat.runner.close()


async def load(
    chats: list[Chat],
    files: Mapping[str, str],
    state: Mapping[str, Any],
    artifacts: Mapping[str, types.Part] | None = None,
    *,
    adk: bool = False,
    artifact_service: bool = True,
    steps: Sequence[Any] = (),
) -> tuple[ScriptedLlm, list[Event]]:
    """Load the skill ``greet`` in one turn, through skillfs's toolset or (``adk``) ADK's own."""
    catalog = SkillCatalog(MemoryBackend({"greet": files}))
    toolset: BaseToolset = (
        SkillToolset(registry=CatalogSkillRegistry(catalog))
        if adk
        else SkillsToolset(catalog, refresh_every=0)
    )
    model = ScriptedLlm(steps=[call("load_skill", skill_name="greet"), *steps, say("done")])
    chat = Chat(model, toolset, artifacts=artifact_service)
    chats.append(chat)
    await chat.start(state, artifacts)
    return model, await chat.send("greet me")


def loaded(events: Sequence[Event]) -> dict[str, Any]:
    return dict(responses(events))["load_skill"]


NOTES = {"notes.txt": types.Part.from_text(text="Bring snacks.")}


@pytest.mark.parametrize("flag", ["'true'", "true", "TRUE", "'True'", "' tRuE '"])
async def test_state_values_fill_the_instructions(chats: list[Chat], flag: str) -> None:
    body = "Hello {user_name} of team {user:team}, tier {tier}. Mood: [{mood?}]."
    model, events = await load(chats, skill(body, flag), STATE)

    expected = "Hello Ada of team core, tier 3. Mood: []."
    assert loaded(events)["instructions"] == expected
    assert last_response(model.requests[1], "load_skill")["instructions"] == expected


async def test_artifacts_fill_the_instructions(chats: list[Chat]) -> None:
    rows = types.Part(inline_data=types.Blob(data=b"a,b\n1,2\n", mime_type="text/csv"))
    body = "Notes: {artifact.notes.txt}\nRows:\n{artifact.rows.csv}[{artifact.gone.txt?}]"
    _, events = await load(chats, skill(body), {}, {**NOTES, "rows.csv": rows})

    assert loaded(events)["instructions"] == "Notes: Bring snacks.\nRows:\na,b\n1,2\n[]"


async def test_without_an_artifact_service_artifacts_are_missing(chats: list[Chat]) -> None:
    body = "[{artifact.notes.txt?}] {artifact.plan.md}"
    _, events = await load(chats, skill(body), {}, artifact_service=False)

    assert loaded(events)["missing"] == ["artifact.plan.md"]


async def test_missing_values_are_one_error_value_and_the_run_goes_on(
    chats: list[Chat], caplog: pytest.LogCaptureFixture
) -> None:
    body = "{user_name} {team} [{mood?}] {artifact.notes.txt} {user_name} {user:plan}"
    with caplog.at_level(logging.WARNING, logger="skillfs.adk"):
        model, events = await load(chats, skill(body), {"mood": "calm"})

    missing = ["user_name", "team", "artifact.notes.txt", "user:plan"]
    error = tool_error(
        codes.STATE_VARIABLE_MISSING,
        "skill 'greet' cannot be loaded yet: its instructions need `user_name`, `team`, "
        "`artifact.notes.txt`, `user:plan`, which this session's state and artifacts do not hold",
        skill_name="greet",
        missing=missing,
    )
    assert loaded(events) == error
    assert last_response(model.requests[1], "load_skill") == error  # the model is told
    assert final_text(events) == "done"  # and the run completes
    assert not [event.error_message for event in events if event.error_message]
    assert "memory://greet/SKILL.md: no value for user_name, team" in caplog.text


async def test_a_missing_value_raises_out_of_adk_own_skill_toolset(chats: list[Chat]) -> None:
    """google-adk 2.13's SkillToolset ends the whole run at the first missing value."""
    with pytest.raises(KeyError, match="Context variable not found: `user_name`"):
        await load(chats, skill("Hello {user_name}."), {}, adk=True)


async def test_same_text_as_adk_own_skill_toolset(chats: list[Chat]) -> None:
    """With every value present, skillfs and google-adk fill a skill in identically."""
    files = skill(PARITY_BODY)
    _, ours = await load(chats, files, STATE, NOTES)
    _, theirs = await load(chats, files, STATE, NOTES, adk=True)

    instructions = loaded(ours)["instructions"]
    assert instructions == loaded(theirs)["instructions"]
    assert instructions.splitlines() == [
        "Hello Ada of team core, tier 3. Nothing: [].",
        "Spaced Ada, doubled Ada, optional Ada, absent [].",
        "Artifact: Bring snacks. / []",
        'Left as written: ${user_name} \\{user_name} {bad:key} {x + 1} {"a": 1} {:colon} {a:b:c}',
    ]


@pytest.mark.parametrize("flag", [None, "false", "'FALSE'", "'yes'"])
async def test_skills_without_the_flag_are_left_as_written(
    chats: list[Chat], flag: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    body = 'Hello {user_name}.\n\n```python\nprint(f"{user_name}", {"a": 1})\n```'
    with caplog.at_level(logging.WARNING, logger="skillfs.adk"):
        _, events = await load(chats, skill(body, flag), STATE)

    assert loaded(events)["instructions"] == body
    if flag == "'yes'":
        assert "metadata.adk_inject_state 'yes' is not true or false; ignored" in caplog.text


async def test_fork_mode_skills_run_with_the_filled_in_content(chats: list[Chat]) -> None:
    files = skill("Greet {user_name} by name.", extra="context: fork\n")
    model, events = await load(chats, files, STATE, steps=[say("Hi Ada!")])

    assert loaded(events)["result"] == "Hi Ada!"
    sub_request = model.requests[1]
    assert [part.text for part in sub_request.contents[-1].parts or []] == [
        "Greet Ada by name.\n\n---\nRequest: greet me"
    ]


async def test_fork_mode_skills_missing_values_never_start_the_sub_agent(
    chats: list[Chat],
) -> None:
    files = skill("Greet {user_name} by name.", extra="context: fork\n")
    model, events = await load(chats, files, {})

    assert loaded(events)["error_code"] == codes.STATE_VARIABLE_MISSING
    assert len(model.requests) == 2  # the parent's two turns; no sub-agent request
