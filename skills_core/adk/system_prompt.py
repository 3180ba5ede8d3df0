"""What the model is told about skills: the system instruction and the tool descriptions.

Both are functions so users can replace them (as with Eino's skill middleware): the system
prompt receives a :class:`PromptContext`, the ``load_skill`` description the current skills.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from skills_core.format.models import SkillMetadata
from skills_core.tool_table import LOAD_SKILL, TOOLS, ToolNames


@dataclass(frozen=True, slots=True)
class PromptContext:
    """What a system prompt builder knows.

    Attributes:
        names: The tool names as the model sees them (prefix applied).
        scripts: Whether ``run_skill_script`` is offered.
        eager: Whether the skill catalog follows in the system instruction.
        skills: The skills a model may choose right now (not those only a user may invoke).
        search: Whether ``search_skills`` is offered.
    """

    names: ToolNames
    scripts: bool
    eager: bool
    skills: Sequence[SkillMetadata]
    search: bool = False


SystemPrompt = Callable[[PromptContext], str]
"""Builds the skills part of the system instruction, for each model request."""

SkillsDescription = Callable[[Sequence[SkillMetadata]], str]
"""Builds the ``load_skill`` tool's description from the current skills, for each request."""


def default_system_prompt(context: PromptContext) -> str:
    """Explain skills and the tools that reach them."""
    names = context.names
    discover = (
        "The skills you can use are listed below."
        if context.eager
        else f"Call `{names.list_skills}` to see which skills exist; the list can change "
        "between turns."
    )
    if context.search:
        discover += (
            f" Call `{names.search_skills}` with a request's key words to find the skills "
            "that fit it."
        )
    steps = [
        discover,
        f"When a skill fits the request, call `{names.load_skill}` with its `skill_name` and "
        "follow the instructions it returns, completely and in order, before you reply.",
        f"Read files a skill mentions (references/, assets/, scripts/) with "
        f"`{names.load_skill_resource}`; it reads skill files only, never the user's files.",
    ]
    if context.scripts:
        steps.append(
            f"Run a skill's scripts with `{names.run_skill_script}`, giving `args` as a list "
            "of strings or an object of options."
        )
    else:
        steps.append("Skill scripts cannot be run here; read them and follow them yourself.")
    steps.append(
        "If a skill tool returns an `error_code`, do not guess other names or paths: tell "
        "the user what failed."
    )
    numbered = "\n".join(f"{index}. {step}" for index, step in enumerate(steps, start=1))
    return (
        "You have skills: folders of instructions, references, assets and scripts for "
        "specialised tasks.\n\n" + numbered
    )


def default_load_skill_description(skills: Sequence[SkillMetadata]) -> str:
    """A fixed description; the skills themselves reach the model another way."""
    del skills
    return (
        f"{TOOLS[LOAD_SKILL].description} For skills that run in a sub-agent, runs it on "
        "`request` and returns the answer."
    )
