"""SkillsToolset: an ADK toolset serving the skills of any skillfs catalog.

The tools carry the names and parameters of google-adk's own SkillToolset (``list_skills``,
``load_skill``, ``load_skill_resource``, ``run_skill_script``). Unlike it, they read a live
catalog: at the start of each turn the toolset may refresh the catalog (rate-limited), and
every declaration and system instruction is built from the catalog's current snapshot, so
skills added, changed or removed in storage show up without rebuilding the agent.

A toolset picking a catalog per user or session keeps each catalog's tools on that catalog,
under the toolset held weakly: they go with the catalog (or the toolset), and so do the local
copies its remote scripts ran from. A service making a catalog per user grows with the
catalogs it holds, not with every user it served.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.llm_request import LlmRequest
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.tool_context import ToolContext

from skills_core.adk.code_gate import CodeGate
from skills_core.adk.fork import Forker
from skills_core.adk.handlers import build_tools, context_path_of
from skills_core.adk.inline import InlineFiles
from skills_core.adk.options import Listing, Loading, Prompts
from skills_core.adk.system_prompt import PromptContext
from skills_core.catalog.catalog import SkillCatalog
from skills_core.context.budget import ShownOrder, model_visible
from skills_core.tool_table import LIST_SKILLS, RUN_SKILL_SCRIPT, SEARCH_SKILLS
from skills_core.tools.factory import SkillTools
from skills_core.tools.policy import ScriptPolicy
from skills_core.tools.refresh import RefreshGate

CatalogSelector = Callable[[ReadonlyContext], SkillCatalog | Awaitable[SkillCatalog]]
"""Picks the catalog for a user or session from ADK's context (sync or async). It must return
the same catalog object each time for the same skills: tools are built once per catalog, and
kept while the catalog is (drop a user's catalog and its tools and script copies go too)."""


class SkillsToolset(BaseToolset):
    """Skill tools for an ADK agent: ``LlmAgent(..., tools=[SkillsToolset(catalog)])``.

    Args:
        catalog: The skills to serve, from any backend; or a :data:`CatalogSelector` that
            picks them per user or session (``lambda context: catalogs[context.user_id]``).
            The toolset does not close the catalog's backend: its opener does.
        refresh_every: Refresh the catalog at the start of a turn when this many seconds
            passed since the last refresh (``0``: every turn; ``None``: never - keep it
            current yourself, e.g. with ``catalog.watch()``).
        scripts: Allows ``run_skill_script`` under this policy; ``None`` keeps scripts off.
        listing: How the catalog is discovered (lazy or eager), searched, budgeted and
            filtered (:class:`~skills_core.adk.options.Listing`).
        prompts: Tool names, ``load_skill``'s description and the system instruction
            (:class:`~skills_core.adk.options.Prompts`).
        loading: What ``load_skill`` and ``load_skill_resource`` return: the content
            builder, fork-mode resolvers, the resource cap
            (:class:`~skills_core.adk.options.Loading`).
        tool_name_prefix: Prefix for every tool name (ADK's toolset option).
        tool_filter: Which tools to offer (ADK's toolset option).
    """

    def __init__(
        self,
        catalog: SkillCatalog | CatalogSelector,
        *,
        refresh_every: float | None = 5.0,
        scripts: ScriptPolicy | None = None,
        listing: Listing | None = None,
        prompts: Prompts | None = None,
        loading: Loading | None = None,
        tool_name_prefix: str | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
    ) -> None:
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        self._listing = listing = listing or Listing()
        self._prompts = prompts = prompts or Prompts()
        loading = loading or Loading()
        self._names = prompts.names
        seen = self._names.prefixed(tool_name_prefix)

        def serve(catalog: SkillCatalog) -> _Served:
            tools = SkillTools(
                catalog,
                scripts=scripts,
                build_content=loading.build_content,
                max_resource_bytes=loading.max_resource_bytes,
                max_load_chars=loading.max_load_chars,
                listing=listing,
                names=seen,
                inline_files=True,
            )
            inline = InlineFiles()
            order = ShownOrder()  # one for the eager instruction and the skill_name enums
            built = build_tools(
                tools,
                self._names,
                describe_load_skill=lambda: prompts.load_skill_description(
                    model_visible(catalog.list())
                ),
                forker=Forker(loading.agents, loading.models),
                inline=inline,
                order=order,
            )
            offered: list[BaseTool] = [
                tool
                for key, tool in built.items()
                if not (key == LIST_SKILLS and listing.eager)
                and not (key == RUN_SKILL_SCRIPT and scripts is None)
                and not (key == SEARCH_SKILLS and not listing.searches)
            ]
            gate = RefreshGate(catalog, refresh_every)
            return _Served(tools, inline, offered, gate, order)

        self._serve = serve
        self._gate = CodeGate(self._tools_for)
        self._catalogs: weakref.WeakSet[SkillCatalog] = weakref.WeakSet()  # served, for close()
        self._catalog: SkillCatalog | None = None
        self._select: CatalogSelector
        if isinstance(catalog, SkillCatalog):
            fixed = self._catalog = catalog
            self._select = lambda _context: fixed
            self._served_by(fixed)
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
        return self._served_by(self._catalog).tools

    async def catalog_for(self, context: ReadonlyContext) -> SkillCatalog:
        """The catalog serving ``context``'s user or session."""
        return (await self._served_for(context)).tools.catalog

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The skill tools; a new turn may refresh the catalog first."""
        if readonly_context is not None:
            served = await self._served_for(readonly_context)
            await served.refresh.refresh_for_turn(readonly_context.invocation_id)
        elif self._catalog is not None:
            served = self._served_by(self._catalog)
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
        if served.tools.script_approvals.gating:  # before the model can answer with code
            self._gate.attach(tool_context.get_invocation_context().agent)
        skills = model_visible(served.tools.catalog.list())
        context = PromptContext(
            names=self._names.prefixed(self.tool_name_prefix),
            scripts=served.tools.scripts is not None,
            eager=self._listing.eager,
            search=self._listing.searches,
            skills=skills,
        )
        prompt = self._prompts.system_prompt
        instructions = [prompt if isinstance(prompt, str) else prompt(context)]
        if self._listing.eager:
            context_path = context_path_of(tool_context.state)
            tools = served.tools
            listed = tools.listing.prompt(
                tools.catalog, context_path=context_path, order=served.order, names=tools.names
            )
            instructions.append(listed)
        llm_request.append_instructions([text for text in instructions if text])
        served.inline.attach(llm_request)

    async def close(self) -> None:
        """Delete local copies made to run remote skills' scripts."""
        for catalog in list(self._catalogs):
            await self._served_by(catalog).tools.close()

    async def _served_for(self, context: ReadonlyContext) -> _Served:
        """The tools of the catalog for ``context``: the fixed one, or the one picked."""
        picked = self._select(context)
        catalog = await picked if inspect.isawaitable(picked) else picked
        if not isinstance(catalog, SkillCatalog):
            raise TypeError(f"the catalog selector returned {catalog!r}, not a SkillCatalog")
        return self._served_by(catalog)

    async def _tools_for(self, context: ReadonlyContext) -> SkillTools:
        return (await self._served_for(context)).tools

    def _served_by(self, catalog: SkillCatalog) -> _Served:
        """This toolset's tools of ``catalog``, built once and kept on it (see the module)."""
        toolsets: weakref.WeakKeyDictionary[SkillsToolset, _Served]
        toolsets = catalog.attached(SkillsToolset, weakref.WeakKeyDictionary)
        served = toolsets.get(self)
        if served is None:
            served = toolsets[self] = self._serve(catalog)
            self._catalogs.add(catalog)
        return served


@dataclass(frozen=True, slots=True)
class _Served:
    """One catalog's tools, and the gate that refreshes the catalog once per turn."""

    tools: SkillTools
    inline: InlineFiles
    offered: list[BaseTool]
    refresh: RefreshGate
    order: ShownOrder
    """The order the catalog was first shown in, shared by the eager instruction and the
    ``skill_name`` enums, so both only grow at their end and list the skills alike."""
