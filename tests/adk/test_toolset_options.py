"""SkillsToolset options: per-turn refresh with a rate limit, and Eino-style customisation."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import pytest
from google.adk.agents import LlmAgent

from backends.testing import skill_md
from skills_core import Skill, SkillCatalog, SkillMetadata
from skills_core.adk import Listing, Loading, PromptContext, Prompts, SkillsToolset, ToolNames
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
from tests.tools.skillset import CountingMemoryBackend

SKILLS = {
    "pdf": {"SKILL.md": skill_md("pdf", "Fill PDF forms.", "Use the form.")},
    "notes": {"SKILL.md": skill_md("notes", "Take meeting notes.")},
}


async def two_turns(toolset: SkillsToolset) -> ScriptedLlm:
    model = ScriptedLlm(steps=[say("one"), say("two")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    await chat.send("first")
    await chat.send("second")
    await chat.close()
    return model


@pytest.mark.parametrize(("refresh_every", "listings"), [(0, 2), (3600, 1), (None, 0)])
async def test_refresh_runs_once_per_turn_and_is_rate_limited(
    refresh_every: float | None, listings: int
) -> None:
    backend = CountingMemoryBackend(SKILLS)
    await two_turns(SkillsToolset(SkillCatalog(backend), refresh_every=refresh_every))
    assert backend.calls["list"] == listings


async def test_one_listing_per_turn_however_many_model_calls() -> None:
    backend = CountingMemoryBackend(SKILLS)
    toolset = SkillsToolset(SkillCatalog(backend), refresh_every=0)
    model = ScriptedLlm(
        steps=[call("list_skills"), call("load_skill", skill_name="pdf"), say("ok")]
    )
    await one_turn(model, toolset, "go")
    assert len(model.requests) == 3
    assert backend.calls["list"] == 1


async def test_names_descriptions_prompt_and_content_are_customisable() -> None:
    catalog = SkillCatalog(CountingMemoryBackend(SKILLS))

    def describe(skills: Sequence[SkillMetadata]) -> str:
        return "Skills: " + ", ".join(f"{meta.name} ({meta.description})" for meta in skills)

    def prompt(context: PromptContext) -> str:
        return f"Use `{context.names.load_skill}` for {len(context.skills)} skills."

    def content(skill: Skill) -> str:
        return f"<skill {skill.name}>{skill.body.strip()}</skill>"

    toolset = SkillsToolset(
        catalog,
        refresh_every=0,
        listing=Listing(discovery="eager"),
        prompts=Prompts(
            names=ToolNames(load_skill="skill"),
            load_skill_description=describe,
            system_prompt=prompt,
        ),
        loading=Loading(build_content=content),
        tool_name_prefix="kb",
    )
    model = ScriptedLlm(steps=[call("kb_skill", skill_name="pdf"), say("ok")])
    events = await one_turn(model, toolset, "go")

    shown = declarations(model.requests[0])
    assert sorted(shown) == ["kb_load_skill_resource", "kb_skill"]
    assert shown["kb_skill"].description == (
        "Skills: notes (Take meeting notes.), pdf (Fill PDF forms.)"
    )
    assert "Use `kb_skill` for 2 skills." in system_text(model.requests[0])
    assert dict(responses(events))["kb_skill"]["instructions"] == "<skill pdf>Use the form.</skill>"


async def test_tool_filter_hides_tools() -> None:
    toolset = SkillsToolset(
        SkillCatalog(CountingMemoryBackend(SKILLS)), tool_filter=["list_skills", "load_skill"]
    )
    model = await two_turns(toolset)
    assert sorted(declarations(model.requests[0])) == ["list_skills", "load_skill"]


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="refresh interval"):
        SkillsToolset(SkillCatalog(CountingMemoryBackend()), refresh_every=-1)
    with pytest.raises(ValueError, match="discovery"):
        SkillsToolset(SkillCatalog(CountingMemoryBackend()), listing=Listing(discovery="sometimes"))  # type: ignore[arg-type]


async def test_error_values_count_as_errors_in_adk_telemetry() -> None:
    toolset = SkillsToolset(SkillCatalog(CountingMemoryBackend(SKILLS)))
    tools = {tool.name: tool for tool in await toolset.get_tools()}
    detect = tools["load_skill"]._detect_error_in_response  # ADK's optional telemetry hook
    assert detect({"error": "no skill", "error_code": "SKILL_NOT_FOUND"}) == "SKILL_NOT_FOUND"
    assert detect({"skill_name": "pdf"}) is None


def test_the_signature_stays_short() -> None:
    """Options of one concern are grouped in an object (``Listing``, ``Prompts``, ``Loading``)."""
    assert len(inspect.signature(SkillsToolset).parameters) <= 8
