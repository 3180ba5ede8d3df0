"""SkillsToolset: an ADK toolset serving the skills of any skillfs catalog (docs/adk.md).

The tools carry google-adk's SkillToolset names and parameters but read a live catalog: a turn
may start with a refresh (:class:`RefreshGate`). Each catalog's tools are kept on the catalog,
under the toolset held weakly, so they go with either.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.code_executors.base_code_executor import BaseCodeExecutor
from google.adk.code_executors.built_in_code_executor import BuiltInCodeExecutor
from google.adk.code_executors.code_execution_utils import CodeExecutionUtils
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from backends._base import Backend
from backends._composite import CompositeBackend
from backends._errors import SkillNotFoundError
from backends._opener import open_backend
from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import SCRIPT_NOT_APPROVED
from skills_core._format.models import SkillMetadata
from skills_core._tool_table import LIST_SKILLS, LOAD_SKILL, TOOLS, ToolNames
from skills_core._trust.policy import TrustPolicy
from skills_core.adk._handlers import (
    AgentResolver,
    Forker,
    InlineFiles,
    ModelResolver,
    SessionState,
    build_tools,
    context_path_of,
    note_shown,
    shown_contents,
)
from skills_core.context._budget import ListingPolicy, ShownOrder, model_visible
from skills_core.tools._content import ToolResult, tool_error
from skills_core.tools._factory import LoadPolicy, SkillTools
from skills_core.tools._policy import ScriptPolicy

logger = logging.getLogger("skillfs.tools")

CatalogSelector = Callable[[ReadonlyContext], SkillCatalog | Awaitable[SkillCatalog]]
"""Picks the catalog for a user or session (sync or async); the same object for the same
skills, as tools are built once per catalog."""

Source = str | os.PathLike[str] | Backend
"""A folder path (a leading ``~`` is expanded), a URL :func:`backends.open_backend` opens, or
a backend."""

Discovery = Literal["lazy", "eager"]


@dataclass(frozen=True, slots=True)
class Listing(ListingPolicy):
    """The listing policy; ``discovery="eager"`` writes the catalog into the instruction.

    Then ``list_skills`` is not offered (``"lazy"``, the default: the model calls it).
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
    """The load policy, and who resolves fork-mode skills' frontmatter ``agent`` and ``model``."""

    agents: AgentResolver | None = None
    models: ModelResolver | None = None


@dataclass(frozen=True, slots=True)
class PromptContext:
    """What a system prompt builder knows (each request).

    The tool names as shown (prefix applied), whether ``run_skill_script`` and ``search_skills``
    are offered, whether the catalog follows in the instruction, the skills a model may choose.
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

    The names default to google-adk's; the description (from the current skills) and the
    instruction (text, or a function of a :class:`PromptContext`) are built for each request.
    """

    names: ToolNames = field(default_factory=ToolNames)
    load_skill_description: Callable[[Sequence[SkillMetadata]], str] = (
        default_load_skill_description
    )
    system_prompt: str | Callable[[PromptContext], str] = default_system_prompt


class SkillsToolset(BaseToolset):
    """Skill tools for an ADK agent: ``LlmAgent(..., tools=[SkillsToolset(catalog)])``.

    ``catalog``: the skills to serve (its backend stays its opener's to close), or a
    :data:`CatalogSelector` picking them per user or session. A turn refreshes the catalog when
    ``refresh_every`` seconds passed (``0``: every turn; ``None``: never); ``scripts=None``
    keeps scripts off; the option objects: docs/adk.md ("Customising what the model sees").
    """

    def __init__(
        self,
        catalog: SkillCatalog | CatalogSelector,
        *,
        refresh_every: float | None = 5.0,
        scripts: ScriptPolicy | None = None,
        listing: Listing | None = None,
        prompts: Prompts | None = None,
        loading: LoadPolicy | None = None,
        tool_name_prefix: str | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
    ) -> None:
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        RefreshGate.check(refresh_every)
        self._listing = listing = listing or Listing()
        self._prompts = prompts = prompts or Prompts()
        loading = loading or Loading()
        forker = (
            Forker(loading.agents, loading.models) if isinstance(loading, Loading) else Forker()
        )
        seen = prompts.names.prefixed(tool_name_prefix)

        def serve(catalog: SkillCatalog) -> _Served:
            tools = SkillTools(
                catalog,
                scripts=scripts,
                loading=loading,
                listing=listing,
                names=seen,
                inline_files=True,
            )
            inline = InlineFiles()
            order = ShownOrder()  # one for the eager instruction and the skill_name enums
            built = build_tools(
                tools,
                prompts.names,
                describe_load_skill=lambda: prompts.load_skill_description(
                    model_visible(catalog.list())
                ),
                forker=forker,
                inline=inline,
                order=order,
            )
            offered: list[BaseTool] = [
                built[tool.name]
                for tool in tools.offered()
                if not (tool.name == LIST_SKILLS and listing.eager)
            ]
            return _Served(tools, inline, offered, RefreshGate(catalog, refresh_every), order)

        self._serve = serve
        self.code_gate = CodeGate(self.tools_for)
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
        """The catalog the tools read (``AttributeError`` when picked per context)."""
        return self.tools.catalog

    @property
    def tools(self) -> SkillTools:
        """The tools behind this toolset (``AttributeError`` when picked per context)."""
        if self._catalog is None:
            raise AttributeError("this toolset picks its catalog per context: use catalog_for()")
        return self._served_by(self._catalog).tools

    async def catalog_for(self, context: ReadonlyContext) -> SkillCatalog:
        """The catalog serving ``context``'s user or session."""
        return (await self.tools_for(context)).catalog

    async def tools_for(self, context: ReadonlyContext) -> SkillTools:
        """The tools serving ``context``'s user or session."""
        return (await self._served_for(context)).tools

    async def turn_tools(self, context: ReadonlyContext) -> SkillTools:
        """:meth:`tools_for`, their catalog refreshed first when ``context``'s turn is new."""
        return (await self._turn(context)).tools

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The skill tools; a new turn may refresh the catalog first."""
        if readonly_context is not None:
            served = await self._turn(readonly_context)
        elif self._catalog is not None:
            served = self._served_by(self._catalog)
        else:
            return []  # outside a run, a per-context toolset has no catalog to pick
        return [tool for tool in served.offered if self._is_tool_selected(tool, readonly_context)]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add the skills guidance (and the eager catalog) to the instruction; inline files."""
        served = await self._served_for(tool_context)
        agent = tool_context.get_invocation_context().agent
        self.code_gate.guard(served.tools, agent)  # before the model can answer with code
        skills = model_visible(served.tools.catalog.list())
        context = PromptContext(
            names=self._prompts.names.prefixed(self.tool_name_prefix),
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

    async def _turn(self, context: ReadonlyContext) -> _Served:
        served = await self._served_for(context)
        await served.refresh.refresh_for_turn(context.invocation_id)
        return served

    async def _served_for(self, context: ReadonlyContext) -> _Served:
        picked = self._select(context)
        catalog = await picked if inspect.isawaitable(picked) else picked
        if not isinstance(catalog, SkillCatalog):
            raise TypeError(f"the catalog selector returned {catalog!r}, not a SkillCatalog")
        return self._served_by(catalog)

    def _served_by(self, catalog: SkillCatalog) -> _Served:
        """This toolset's tools of ``catalog``, built once and kept on it."""
        toolsets: weakref.WeakKeyDictionary[SkillsToolset, _Served]
        toolsets = catalog.attached(SkillsToolset, weakref.WeakKeyDictionary)
        served = toolsets.get(self)
        if served is None:
            served = toolsets[self] = self._serve(catalog)
            self._catalogs.add(catalog)
        return served


@dataclass(frozen=True, slots=True)
class _Served:
    """One catalog's tools, its refresh gate, and the order it was first shown in."""

    tools: SkillTools
    inline: InlineFiles
    offered: list[BaseTool]
    refresh: RefreshGate
    order: ShownOrder


class RefreshGate:
    """Refreshes a catalog before use, at most once every ``every`` seconds (``None``: never).

    The gates of one catalog share its clock, kept on the catalog: a refresh through any of
    them counts for all, so storage is listed once per turn however many read it.
    """

    def __init__(self, catalog: SkillCatalog, every: float | None) -> None:
        self.check(every)
        self._catalog = catalog
        self._every = every
        self._turn: str | None = None

    @staticmethod
    def check(every: float | None) -> None:
        """Refuse an interval that is neither ``None`` nor at least 0."""
        if every is not None and every < 0:
            raise ValueError(f"refresh interval must be >= 0 or None, not {every}")

    async def maybe_refresh(self) -> bool:
        """Refresh unless one ran within the interval (through any gate); True when one ran.

        A failed refresh is logged and the catalog keeps its last good snapshot (ADK would
        silently drop a toolset whose tools fail to load).
        """
        if self._every is None:
            return False
        last: dict[str, float] = self._catalog.attached(RefreshGate, dict)  # "at": monotonic
        now = time.monotonic()
        if "at" in last and now - last["at"] < self._every:
            return False
        last["at"] = now
        try:
            await self._catalog.refresh()
        except Exception:
            location = self._catalog.backend.location
            logger.exception(
                "refreshing the skills of %s failed; serving the last good catalog", location
            )
        return True

    async def refresh_for_turn(self, turn: str) -> bool:
        """Refresh when ``turn`` (an invocation id) is new, so a turn's skills stay the same."""
        if turn == self._turn:
            return False
        self._turn = turn
        return await self.maybe_refresh()


REMEMBERED_TURNS = 64
"""Most turns a per-turn memory (the code gate's, a provider's) keeps."""


class CodeGate:
    """No code runs while the model acts on a skill whose scripts need approval (SEP-2640).

    The ``code_tools`` and the agent's ``code_executor`` (not ``BuiltInCodeExecutor``) are
    refused with ``SCRIPT_NOT_APPROVED`` until the user approves every content shown in the
    session (docs/adk.md).
    """

    def __init__(self, tools_for: Callable[[ReadonlyContext], Awaitable[SkillTools]]) -> None:
        self._tools_for = tools_for
        self._pending: OrderedDict[str, list[str]] = OrderedDict()

    def guard(self, tools: SkillTools, agent: object) -> None:
        """Put the gate first in ``agent``'s callbacks, once, if ``tools``' source may gate."""
        if not tools.script_approvals.gating:
            return
        if isinstance(agent, LlmAgent) and self.before_tool not in (
            callbacks := agent.canonical_before_tool_callbacks
        ):
            agent.before_model_callback = [
                self.before_model,
                *agent.canonical_before_model_callbacks,
            ]
            agent.before_tool_callback = [self.before_tool, *callbacks]
            agent.after_model_callback = [self.after_model, *agent.canonical_after_model_callbacks]

    def shown(self, turn: str, skill_name: str) -> None:
        """Note a skill a mode showed the model in ``turn``; recorded at its next model request."""
        names = self._pending.setdefault(turn, [])
        if skill_name not in names:
            names.append(skill_name)
        while len(self._pending) > REMEMBERED_TURNS:
            self._pending.popitem(last=False)

    async def before_model(
        self, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Record the skills a mode showed the model in this turn."""
        names = self._pending.pop(callback_context.invocation_id, [])
        if names:
            tools = await self._tools_for(callback_context)
            for name in names:
                await note_shown(tools, callback_context.state, name)
        return None

    async def before_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Refuse a call of a code tool while the gate is closed."""
        tools = await self._tools_for(tool_context)
        if tools.scripts is None or tool.name not in tools.scripts.code_tools:
            return None
        return await code_refusal(tools, tool_context.state, f"a call of {tool.name!r}")

    async def after_model(
        self, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Answer the code of a model's response as failed while the gate is closed."""
        executor = getattr(callback_context.get_invocation_context().agent, "code_executor", None)
        if (
            not isinstance(executor, BaseCodeExecutor)
            or isinstance(executor, BuiltInCodeExecutor)
            or llm_response.content is None
            or llm_response.partial
        ):
            return None
        tools = await self._tools_for(callback_context)
        if not shown_contents(tools, callback_context.state):
            return None
        content = llm_response.content.model_copy(deep=True)  # cut after its first code
        if not CodeExecutionUtils.extract_code_and_truncate_content(
            content, executor.code_block_delimiters
        ):
            return None
        refusal = await code_refusal(tools, callback_context.state, "the agent's code executor")
        if refusal is None:
            return None
        failed = types.Part.from_code_execution_result(
            outcome=types.Outcome.OUTCOME_FAILED,
            output=f"{refusal['error']} [{refusal['error_code']}]",
        )
        content.parts = [*(content.parts or []), failed]
        return llm_response.model_copy(update={"content": content})


async def code_refusal(tools: SkillTools, state: SessionState, running: str) -> ToolResult | None:
    """``SCRIPT_NOT_APPROVED`` while a gated content shown is unapproved, else ``None``.

    ``running`` names what would run, for the message (``"a call of 'bash'"``).
    """
    what = f"code while the model acts on it ({running})"
    for name, digests in shown_contents(tools, state).items():
        for digest in digests:
            try:
                refusal = await tools.script_approvals.refusal(name, digest, what=what)
            except SkillNotFoundError:
                message = (
                    f"skill {name!r}, shown to the model in this session, is no longer served: "
                    f"its content cannot be approved, so no code runs in this session ({running})"
                )
                refusal = tool_error(SCRIPT_NOT_APPROVED, message)
            if refusal is not None:
                return refusal
    return None


def open_sources(sources: Sequence[Source]) -> tuple[list[Backend], list[Backend]]:
    """Each source as a backend, and those opened here from paths and URLs (the caller's to close).

    Raises:
        UnsupportedSourceError: A URL names storage skillfs cannot open.
    """
    backends: list[Backend] = []
    opened: list[Backend] = []
    for source in sources:
        if isinstance(source, str | os.PathLike):
            opened.append(open_backend(os.path.expanduser(source)))
            backends.append(opened[-1])
        else:
            backends.append(source)
    return backends, opened


def with_skills(
    agent: LlmAgent,
    *sources: Source,
    trust: TrustPolicy | None = None,
    **options: Any,
) -> LlmAgent:
    """Add a :class:`SkillsToolset` serving ``sources`` to ``agent`` and return the agent.

    ``sources`` (paths, URLs :func:`backends.open_backend` opens, backends) merge in
    precedence order (the first wins a name clash); backends opened here from paths and URLs
    close with the toolset, those passed in stay open. ``trust`` is the catalog's
    (:class:`~skills_core._trust.policy.TrustPolicy`); ``options`` go to :class:`SkillsToolset`.

    Raises:
        ValueError: No source was given.
        UnsupportedSourceError: A URL names storage skillfs cannot open.
    """
    if not sources:
        raise ValueError("with_skills needs at least one path, URL or backend")
    backends, opened = open_sources(sources)
    backend = backends[0] if len(backends) == 1 else CompositeBackend(backends)
    agent.tools.append(_OwningToolset(SkillCatalog(backend, trust=trust), opened, **options))
    return agent


class _OwningToolset(SkillsToolset):
    """A :class:`SkillsToolset` that also closes the backends :func:`with_skills` opened."""

    def __init__(self, catalog: SkillCatalog, opened: list[Backend], **options: Any) -> None:
        super().__init__(catalog, **options)
        self._opened = opened

    async def close(self) -> None:
        """Delete script copies, then close the backends opened for this toolset."""
        try:
            await super().close()
        finally:
            await asyncio.gather(*(backend.aclose() for backend in self._opened))
