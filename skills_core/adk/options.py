"""SkillsToolset's option objects: what is listed, what the model is told, how skills load.

Each groups the keyword options of one concern, as httpx's ``Timeout`` and ``Limits`` do, so
:class:`~skills_core.adk.SkillsToolset` keeps a short signature::

    SkillsToolset(catalog, listing=Listing(budget=8000), loading=Loading(models=models))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from skills_core.adk.fork import AgentResolver, ModelResolver
from skills_core.adk.system_prompt import (
    SkillsDescription,
    SystemPrompt,
    default_load_skill_description,
    default_system_prompt,
)
from skills_core.context.budget import ListingPolicy
from skills_core.tool_table import ToolNames
from skills_core.tools.content import ContentBuilder, skill_body
from skills_core.tools.factory import DEFAULT_MAX_LOAD_CHARS, DEFAULT_MAX_RESOURCE_BYTES

Discovery = Literal["lazy", "eager"]


@dataclass(frozen=True, slots=True)
class Listing(ListingPolicy):
    """How the model discovers the catalog, and how much of it it is shown.

    The listing policy :class:`~skills_core.tools.SkillTools` takes (``budget``,
    ``include_tags``, ``exclude_tags``, ``search``: by default ``search_skills`` is offered
    when there is a ``budget``), plus how the model reaches it. Over the budget, descriptions
    shorten, then each skill takes one line, then only names are listed, then as many names as
    fit and a count with ``search_skills``, and the model is told (see
    :mod:`skills_core.context.budget`), the notes naming the tools as ``Prompts(names=...)``
    and the toolset's prefix do. Skills whose ``paths`` miss the session's context path (state
    ``"skillfs:context_path"``) are not listed; filters apply before the budget.

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
class Prompts:
    """What the model is told: tool names, the ``load_skill`` description, the instruction.

    Attributes:
        names: The tool names (default: google-adk's).
        load_skill_description: Builds ``load_skill``'s description from the current skills.
        system_prompt: The skills part of the system instruction: text, or a function of a
            :class:`~skills_core.adk.system_prompt.PromptContext`.
    """

    names: ToolNames = field(default_factory=ToolNames)
    load_skill_description: SkillsDescription = default_load_skill_description
    system_prompt: str | SystemPrompt = default_system_prompt


@dataclass(frozen=True, slots=True)
class Loading:
    """What ``load_skill`` and ``load_skill_resource`` return.

    Attributes:
        build_content: Builds the instructions ``load_skill`` returns (default: the body).
            It sees the body with session state filled in, for skills that set
            ``metadata.adk_inject_state``.
        agents: Resolves frontmatter ``agent`` for fork-mode skills.
        models: Resolves frontmatter ``model`` for fork-mode skills.
        max_resource_bytes: Largest file ``load_skill_resource`` returns.
        max_load_chars: Longest ``load_skill`` reply; longer skills come in parts.
    """

    build_content: ContentBuilder = skill_body
    agents: AgentResolver | None = None
    models: ModelResolver | None = None
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    max_load_chars: int = DEFAULT_MAX_LOAD_CHARS
