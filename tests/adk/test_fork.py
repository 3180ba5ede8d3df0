"""Fork-mode skills run in a sub-agent (scripted too) and return its final answer."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest
from google.adk.agents import BaseAgent, LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.genai import types

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import Loading, SkillsToolset
from tests.adk.scripted import (
    Conversation,
    ScriptedLlm,
    call,
    final_text,
    last_response,
    one_turn,
    responses,
    say,
    system_text,
)


def skill(name: str, extra: str, body: str) -> dict[str, str]:
    return {"SKILL.md": f"---\nname: {name}\ndescription: The {name} skill.\n{extra}---\n{body}\n"}


SKILLS = {
    "summarize": skill("summarize", "context: fork\n", "Summarise in one line."),
    "recall": skill("recall", "context: fork_with_context\n", "Recall what the user said."),
    "expert": skill("expert", "context: fork\nagent: legal\nmodel: big\n", "Check the law."),
    "inline": skill("inline", "", "Just follow me."),
}


def catalog() -> SkillCatalog:
    return SkillCatalog(MemoryBackend(SKILLS))


def relay(request: LlmRequest) -> types.Part:
    return say("Parent got: " + last_response(request, "load_skill")["result"])


def texts(request: LlmRequest) -> list[str]:
    return [part.text or "" for content in request.contents for part in content.parts or []]


async def test_fork_runs_the_skill_in_a_fresh_context() -> None:
    model = ScriptedLlm(
        steps=[
            say("Hello Ada."),
            call("load_skill", skill_name="summarize", request="Summarise the design doc."),
            say("One line."),  # the sub-agent's answer, from the same (inherited) model
            relay,
        ]
    )
    toolset = SkillsToolset(catalog(), refresh_every=0)
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    await chat.send("My name is Ada.")
    events = await chat.send("Summarise it.")
    await chat.close()

    result = dict(responses(events))["load_skill"]
    assert result == {
        "skill_name": "summarize",
        "context": "fork",
        "agent": "skill_summarize",
        "result": "One line.",
    }
    assert final_text(events) == "Parent got: One line."
    sub_request = model.requests[2]
    assert texts(sub_request) == [
        "Summarise in one line.\n\n---\nRequest: Summarise the design doc."
    ]
    assert "Carry out the skill" in system_text(sub_request)
    assert "list_skills" not in str(sub_request.config.tools)  # the sub-agent has no skills


async def test_fork_with_context_sees_the_conversation() -> None:
    model = ScriptedLlm(
        steps=[say("Hello Ada."), call("load_skill", skill_name="recall"), say("Ada."), relay]
    )
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[SkillsToolset(catalog())]))
    await chat.send("My name is Ada.")
    events = await chat.send("What is my name?")
    await chat.close()

    assert dict(responses(events))["load_skill"]["result"] == "Ada."
    seen = "\n".join(texts(model.requests[2]))
    assert "My name is Ada." in seen
    assert "Hello Ada." in seen
    # Without a `request` argument the sub-agent works on the user's latest message.
    assert seen.endswith("Recall what the user said.\n\n---\nRequest: What is my name?")


async def test_agent_and_model_come_from_the_resolvers() -> None:
    lawyer_model = ScriptedLlm(steps=[say("Legal.")])
    asked: list[tuple[str | None, object]] = []

    def models(name: str) -> BaseLlm | None:
        return lawyer_model if name == "big" else None

    async def agents(name: str | None, model: BaseLlm | str | None) -> BaseAgent | None:
        asked.append((name, model))
        if name != "legal":
            return None
        return LlmAgent(name="legal", model=model or "", instruction="You are a lawyer.")

    parent = ScriptedLlm(
        steps=[call("load_skill", skill_name="expert", request="Is it ok?"), relay]
    )
    toolset = SkillsToolset(catalog(), loading=Loading(agents=agents, models=models))
    chat = Conversation(LlmAgent(name="assistant", model=parent, tools=[toolset]))
    events = await chat.send("check")
    await chat.close()

    assert asked == [("legal", lawyer_model)]
    result = dict(responses(events))["load_skill"]
    assert (result["agent"], result["result"]) == ("legal", "Legal.")
    assert system_text(lawyer_model.requests[0]).startswith("You are a lawyer.")


class Exploding(BaseLlm):
    model: str = "exploding"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        raise RuntimeError("model unavailable")
        yield LlmResponse()  # pragma: no cover - makes this an async generator


@pytest.mark.parametrize(
    ("skill_name", "options", "code"),
    [
        ("expert", {}, "MODEL_NOT_FOUND"),
        ("expert", {"models": lambda name: "scripted"}, "AGENT_NOT_FOUND"),
        ("summarize", {"agents": lambda name, model: None}, "AGENT_NOT_FOUND"),
        (
            "summarize",
            {"agents": lambda name, model: LlmAgent(name="boom", model=Exploding())},
            "FORK_FAILED",
        ),
    ],
)
async def test_fork_failures_are_values(
    skill_name: str, options: dict[str, object], code: str
) -> None:
    model = ScriptedLlm(steps=[call("load_skill", skill_name=skill_name), say("sorry")])
    toolset = SkillsToolset(catalog(), loading=Loading(**options))  # type: ignore[arg-type]
    events = await one_turn(model, toolset, "go")
    result = dict(responses(events))["load_skill"]
    assert result["error_code"] == code, result


async def test_inline_skills_return_their_content() -> None:
    model = ScriptedLlm(steps=[call("load_skill", skill_name="inline"), say("ok")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[SkillsToolset(catalog())]))
    events = await chat.send("go")
    await chat.close()
    assert dict(responses(events))["load_skill"]["instructions"] == "Just follow me."
    assert len(model.requests) == 2  # no sub-agent ran
