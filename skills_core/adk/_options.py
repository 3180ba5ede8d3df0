"""SkillsToolset's option objects, and what the model is told by default.

:class:`Listing` and :class:`Loading` are the tools' own policies plus what only ADK does, and
reach :class:`~skills_core.tools.SkillTools` unchanged; the prompts are replaceable functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from skills_core._format.models import SkillMetadata
from skills_core._tool_table import LOAD_SKILL, TOOLS, ToolNames
from skills_core.adk._handlers import AgentResolver, ModelResolver
from skills_core.context._budget import ListingPolicy
from skills_core.tools._factory import LoadPolicy

Discovery = Literal["lazy", "eager"]


@dataclass(frozen=True, slots=True)
class Listing(ListingPolicy):
    """How the model discovers the catalog: the listing policy, and how the model reaches it.

    Attributes:
        discovery: ``"lazy"``: the model calls ``list_skills``; ``"eager"``: the catalog is
            written into the system instruction and ``list_skills`` is not offered.
    """

    discovery: Discovery = "lazy"

    def __post_init__(self) -> None:
        if self.discovery not in ("lazy", "eager"):
            raise ValueError(f"discovery must be 'lazy' or 'eager', not {self.discovery!r}")

    @property
    def eager(self) -> bool:
        """Whether the catalog goes into the system instruction."""
        return self.discovery == "eager"


@dataclass(frozen=True, slots=True)
class Loading(LoadPolicy):
    """The load policy, and who runs fork-mode skills.

    Attributes:
        agents: Resolves frontmatter ``agent`` for fork-mode skills.
        models: Resolves frontmatter ``model`` for fork-mode skills.
    """

    agents: AgentResolver | None = None
    models: ModelResolver | None = None


@dataclass(frozen=True, slots=True)
class PromptContext:
    """What a system prompt builder knows.

    Attributes:
        names: The tool names as the model sees them (prefix applied).
        scripts: Whether ``run_skill_script`` is offered.
        eager: Whether the skill catalog follows in the system instruction.
        skills: The skills a model may choose right now.
        search: Whether ``search_skills`` is offered.
    """

    names: ToolNames
    scripts: bool
    eager: bool
    skills: Sequence[SkillMetadata]
    search: bool = False


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


@dataclass(frozen=True, slots=True)
class Prompts:
    """What the model is told: tool names, the ``load_skill`` description, the instruction.

    Attributes:
        names: The tool names (default: google-adk's).
        load_skill_description: Builds ``load_skill``'s description from the current skills,
            for each request.
        system_prompt: Text, or a function of a :class:`PromptContext` (each request).
    """

    names: ToolNames = field(default_factory=ToolNames)
    load_skill_description: Callable[[Sequence[SkillMetadata]], str] = (
        default_load_skill_description
    )
    system_prompt: str | Callable[[PromptContext], str] = default_system_prompt
