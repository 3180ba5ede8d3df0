"""A ContextCoordinator per turn in a real runner: the model sees the skill and only its tools."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models import LlmRequest
from google.genai import types

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from skills_core.adk._modes import SkillContextProvider, agent_tool_registry
from skills_core.context._selection import SelectionPolicy
from skills_core.context._turns import ByQuery, ByTag, ContextCoordinator, CoordinatorConfig
from tests.adk.scripted import (
    Conversation,
    ScriptedLlm,
    call,
    declarations,
    responses,
    say,
    system_text,
)
from tests.context.catalogs import emergency, skill

SKILLS = {
    "emergency": emergency(("knowledge", "transfer_call")),
    "forecaster": skill(
        "forecaster",
        "Satellite weather forecasts",
        "Read the satellite.",
        frontmatter="allowed-tools: satellite",
    ),
    "greeter": skill("greeter", "Greet callers", "Say hello.", frontmatter="tags: [fallback]"),
}
LOOSE = CoordinatorConfig(policy=SelectionPolicy(min_score=0.1))


def knowledge(topic: str) -> dict[str, Any]:
    """Look up a topic."""
    return {"answer": f"facts about {topic}"}


def transfer_call(department: str) -> dict[str, Any]:
    """Transfer the caller."""
    return {"transferred_to": department}


def weather(city: str) -> dict[str, Any]:
    """Today's weather."""
    return {"city": city, "sky": "clear"}


def catalog() -> SkillCatalog:
    return SkillCatalog(MemoryBackend({name: {"SKILL.md": text} for name, text in SKILLS.items()}))


def sees(tools: set[str], *, skill: str | None, then: types.Part) -> Any:
    """A step that checks the tools and skill the model was shown, then answers ``then``."""

    def step(request: LlmRequest) -> types.Part:
        assert set(declarations(request)) == tools
        instruction = system_text(request)
        if skill is None:
            assert "[skill:" not in instruction
        else:
            assert f"[skill:{skill}]" in instruction
            for tool in tools:
                assert tool in instruction
        return then

    return step


async def test_each_turn_binds_exactly_the_tools_its_skill_names() -> None:
    registry = await agent_tool_registry([knowledge, transfer_call, weather])
    provider = SkillContextProvider(ContextCoordinator(catalog(), registry, LOOSE))
    both = {"knowledge", "transfer_call"}
    model = ScriptedLlm(
        steps=[
            sees(both, skill="emergency", then=call("transfer_call", department="gas board")),
            sees(both, skill="emergency", then=say("Transferred.")),
            sees(set(), skill=None, then=say("No skill for that.")),  # weather is bound by none
            sees(set(), skill=None, then=say("Still none.")),  # forecaster's tool is missing
        ]
    )
    agent = LlmAgent(
        name="dispatcher", model=model, instruction=provider.instruction, tools=[provider.toolset]
    )
    chat = Conversation(agent)
    events = await chat.send("There is a gas emergency in my kitchen")
    assert responses(events) == [("transfer_call", {"transferred_to": "gas board"})]
    await chat.send("what is the weather in Paris?")
    await chat.send("I need a satellite weather forecast")
    await chat.close()
    assert not model.steps
    assert "You have access to the following tools: knowledge, transfer_call." in system_text(
        model.requests[0]
    )


async def test_fallback_strategies_and_instruction() -> None:
    registry = await agent_tool_registry([knowledge, transfer_call])
    provider = SkillContextProvider(
        ContextCoordinator(catalog(), registry, LOOSE),
        strategies=lambda message: [ByQuery(message), ByTag("fallback")],
        fallback_instruction="Answer briefly.",
    )
    unused = SkillContextProvider(
        ContextCoordinator(catalog(), registry, LOOSE), fallback_instruction="Answer briefly."
    )
    model = ScriptedLlm(
        steps=[
            sees(set(), skill="greeter", then=say("Hello!")),
            sees(set(), skill=None, then=say("Hi")),
        ]
    )
    chat = Conversation(
        LlmAgent(name="a", model=model, instruction=provider.instruction, tools=[provider.toolset])
    )
    await chat.send("hi there")
    await chat.close()
    plain = Conversation(
        LlmAgent(name="b", model=model, instruction=unused.instruction, tools=[unused.toolset])
    )
    await plain.send("hi there")
    await plain.close()
    assert "Answer briefly." in system_text(model.requests[1])


async def test_a_registry_from_an_agents_own_tools_and_toolsets() -> None:
    skills = catalog()
    await skills.refresh()
    pool = LlmAgent(name="pool", model=ScriptedLlm(), tools=[knowledge, SkillsToolset(skills)])
    registry = await agent_tool_registry(pool)
    assert set(registry.tools) == {"knowledge", "list_skills", "load_skill", "load_skill_resource"}
    coordinator = ContextCoordinator(skills, registry)
    context = coordinator.build_context_by_name("emergency")
    assert context is None  # strict: transfer_call is not in this agent's tools
