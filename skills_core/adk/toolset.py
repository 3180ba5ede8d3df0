"""SkillsToolset: an ADK toolset serving the skills of any skillfs catalog.

The tools carry the names and parameters of google-adk's own SkillToolset (``list_skills``,
``load_skill``, ``load_skill_resource``, ``run_skill_script``). Unlike it, they read a live
catalog: at the start of each turn the toolset may refresh the catalog (rate-limited), and
every declaration and system instruction is built from the catalog's current snapshot, so
skills added, changed or removed in storage show up without rebuilding the agent.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.llm_request import LlmRequest
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.tool_context import ToolContext

from skills_core.adk.fork import AgentResolver, Forker, ModelResolver
from skills_core.adk.handlers import build_tools, context_path_of
from skills_core.adk.inline import InlineFiles
from skills_core.adk.names import ToolNames
from skills_core.adk.prompt import (
    PromptContext,
    SkillsDescription,
    SystemPrompt,
    default_load_skill_description,
    default_system_prompt,
)
from skills_core.catalog.catalog import SkillCatalog
from skills_core.context.budget import ListingPolicy
from skills_core.tool_table import LIST_SKILLS, RUN_SKILL_SCRIPT, SEARCH_SKILLS
from skills_core.tools.content import ContentBuilder, skill_body
from skills_core.tools.factory import DEFAULT_MAX_RESOURCE_BYTES, SkillTools
from skills_core.tools.policy import ScriptPolicy
from skills_core.tools.refresh import RefreshGate

Discovery = Literal["lazy", "eager"]

CatalogSelector = Callable[[ReadonlyContext], SkillCatalog | Awaitable[SkillCatalog]]
"""Picks the catalog for a user or session from ADK's context (sync or async). It must return
the same catalog object each time for the same skills: tools are built once per catalog."""


class SkillsToolset(BaseToolset):
    """Skill tools for an ADK agent: ``LlmAgent(..., tools=[SkillsToolset(catalog)])``.

    Args:
        catalog: The skills to serve, from any backend; or a :data:`CatalogSelector` that
            picks them per user or session (``lambda context: catalogs[context.user_id]``).
        discovery: ``"lazy"``: the model calls ``list_skills``; ``"eager"``: the catalog is
            written into the system instruction and ``list_skills`` is not offered.
        refresh_every: Refresh the catalog at the start of a turn when this many seconds
            passed since the last refresh (``0``: every turn; ``None``: never - keep it
            current yourself, e.g. with ``catalog.watch()``).
        scripts: Allows ``run_skill_script`` under this policy; ``None`` keeps scripts off.
        search: Offer ``search_skills``, a ranked search of the catalog (for large
            catalogs); by default, when there is a ``budget``.
        budget: The most characters the catalog may take in ``list_skills``' result (or,
            when eager, the system instruction): over it, descriptions shorten, then only
            names are listed, then only a count and ``search_skills``, and the model is told
            (see :mod:`skills_core.context.budget`). ``None``: no limit.
        include_tags: When set, only skills with one of these tags are listed.
        exclude_tags: Skills with any of these tags are not listed. Skills whose ``paths``
            miss the session's context path (state ``"skillfs:context_path"``) are not
            listed either; filters apply before the budget.
        names: The tool names (default: google-adk's).
        load_skill_description: Builds ``load_skill``'s description from the current skills.
        system_prompt: The skills part of the system instruction: text, or a function of a
            :class:`~skills_core.adk.prompt.PromptContext`.
        build_content: Builds the instructions ``load_skill`` returns (default: the body).
            It sees the body with session state filled in, for skills that set
            ``metadata.adk_inject_state``.
        agents: Resolves frontmatter ``agent`` for fork-mode skills.
        models: Resolves frontmatter ``model`` for fork-mode skills.
        max_resource_bytes: Largest file ``load_skill_resource`` returns.
        tool_name_prefix: Prefix for every tool name (ADK's toolset option).
        tool_filter: Which tools to offer (ADK's toolset option).
    """

    def __init__(
        self,
        catalog: SkillCatalog | CatalogSelector,
        *,
        discovery: Discovery = "lazy",
        refresh_every: float | None = 5.0,
        scripts: ScriptPolicy | None = None,
        search: bool | None = None,
        budget: int | None = None,
        include_tags: Sequence[str] = (),
        exclude_tags: Sequence[str] = (),
        names: ToolNames | None = None,
        load_skill_description: SkillsDescription = default_load_skill_description,
        system_prompt: str | SystemPrompt = default_system_prompt,
        build_content: ContentBuilder = skill_body,
        agents: AgentResolver | None = None,
        models: ModelResolver | None = None,
        max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
        tool_name_prefix: str | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
    ) -> None:
        if discovery not in ("lazy", "eager"):
            raise ValueError(f"discovery must be 'lazy' or 'eager', not {discovery!r}")
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        self._eager = discovery == "eager"
        self._search = search = budget is not None if search is None else search
        self._names = names or ToolNames()
        self._system_prompt = system_prompt
        seen = self._names.prefixed(tool_name_prefix)
        listing = ListingPolicy(
            budget,
            include_tags,
            exclude_tags,
            search_tool=seen.search_skills if search else None,
            load_tool=seen.load_skill,
        )

        def serve(catalog: SkillCatalog) -> _Served:
            tools = SkillTools(
                catalog,
                scripts=scripts,
                build_content=build_content,
                max_resource_bytes=max_resource_bytes,
                listing=listing,
            )
            inline = InlineFiles()
            built = build_tools(
                tools,
                self._names,
                describe_load_skill=lambda: load_skill_description(catalog.list()),
                forker=Forker(agents, models),
                inline=inline,
            )
            offered: list[BaseTool] = [
                tool
                for key, tool in built.items()
                if not (key == LIST_SKILLS and self._eager)
                and not (key == RUN_SKILL_SCRIPT and scripts is None)
                and not (key == SEARCH_SKILLS and not search)
            ]
            return _Served(tools, inline, offered, RefreshGate(catalog, refresh_every))

        self._serve = serve
        self._served: dict[SkillCatalog, _Served] = {}
        self._catalog: SkillCatalog | None = None
        self._select: CatalogSelector
        if isinstance(catalog, SkillCatalog):
            fixed = self._catalog = catalog
            self._select = lambda _context: fixed
            self._served[fixed] = serve(fixed)
        else:
            self._select = catalog

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog the tools read.

        Raises:
            AttributeError: The catalog is picked per context (see ``catalog_for``).
        """
        return self.tools.catalog

    @property
    def tools(self) -> SkillTools:
        """The framework-neutral tools behind this toolset.

        Raises:
            AttributeError: The catalog is picked per context.
        """
        if self._catalog is None:
            raise AttributeError("this toolset picks its catalog per context: use catalog_for()")
        return self._served[self._catalog].tools

    async def catalog_for(self, context: ReadonlyContext) -> SkillCatalog:
        """The catalog serving ``context``'s user or session."""
        return (await self._served_for(context)).tools.catalog

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The skill tools; a new turn may refresh the catalog first."""
        if readonly_context is not None:
            served = await self._served_for(readonly_context)
            await served.refresh.refresh_for_turn(readonly_context.invocation_id)
        elif self._catalog is not None:
            served = self._served[self._catalog]
        else:
            return []  # outside a run, a per-context toolset has no catalog to pick
        return [tool for tool in served.offered if self._is_tool_selected(tool, readonly_context)]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add the skills guidance (and, when eager, the catalog) to the system instruction.

        Binary files the model just read follow as inline data.
        """
        served = await self._served_for(tool_context)
        skills = served.tools.catalog.list()
        context = PromptContext(
            names=self._names.prefixed(self.tool_name_prefix),
            scripts=served.tools.scripts is not None,
            eager=self._eager,
            search=self._search,
            skills=skills,
        )
        prompt = self._system_prompt
        instructions = [prompt if isinstance(prompt, str) else prompt(context)]
        if self._eager:
            context_path = context_path_of(tool_context.state)
            tools = served.tools
            instructions.append(tools.listing.prompt(tools.catalog, context_path=context_path))
        llm_request.append_instructions([text for text in instructions if text])
        served.inline.attach(llm_request)

    async def close(self) -> None:
        """Delete local copies made to run remote skills' scripts."""
        for served in self._served.values():
            await served.tools.close()

    async def _served_for(self, context: ReadonlyContext) -> _Served:
        """The tools of the catalog for ``context``: the fixed one, or the one picked."""
        picked = self._select(context)
        catalog = await picked if inspect.isawaitable(picked) else picked
        if not isinstance(catalog, SkillCatalog):
            raise TypeError(f"the catalog selector returned {catalog!r}, not a SkillCatalog")
        served = self._served.get(catalog)
        if served is None:
            served = self._served[catalog] = self._serve(catalog)
        return served


@dataclass(frozen=True, slots=True)
class _Served:
    """One catalog's tools, and the gate that refreshes the catalog once per turn."""

    tools: SkillTools
    inline: InlineFiles
    offered: list[BaseTool]
    refresh: RefreshGate
