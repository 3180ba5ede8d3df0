"""The per-turn modes of a SkillsToolset: injection, coordination and the tool guard.

Each wraps a :class:`~skills_core.adk.SkillsToolset` (given, or made over the catalog given)
and shares its tools, refresh gate and code gate (docs/adk.md, "Which entry point").
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.agents.llm_agent import LlmAgent, ToolUnion
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from backends._errors import SkillNotFoundError, echoed
from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import TOOL_NOT_PERMITTED
from skills_core._format.matching import permits_tool
from skills_core._tool_table import LOAD_SKILL
from skills_core.adk._handlers import SessionState, SkillTool
from skills_core.adk._toolset import REMEMBERED_TURNS, SkillsToolset
from skills_core.context._search import rank_skills, run_selection
from skills_core.context._selection import SelectionPolicy, Selector
from skills_core.context._turns import (
    DEFAULT_MAX_INJECTED_CHARS,
    ByQuery,
    ContextCoordinator,
    SkillContext,
    Strategy,
    ToolMap,
    apply_skill_injection,
    message_text,
)
from skills_core.tools._content import ToolResult, is_error, tool_error

logger = logging.getLogger("skillfs.adk")

Skills = SkillCatalog | SkillsToolset
"""What a mode serves: a toolset to share, or a catalog (served by a toolset of its own)."""

ACTIVE_SKILL_KEY = "skillfs:active_skill"
"""Session-state key holding the active skill's name."""


def _toolset(skills: Skills, refresh_every: float | None) -> SkillsToolset:
    if isinstance(skills, SkillsToolset):
        return skills
    return SkillsToolset(skills, refresh_every=refresh_every)


class AutoSkillsPlugin(BasePlugin):
    """Inject the best skill into every user message of a runner (adk-rust's auto-skills).

    ``skills``: the toolset to share, or a catalog (served with ``refresh_every``); ``policy``,
    ``max_chars`` and ``selector`` as :func:`apply_skill_injection` takes them
    (docs/choosing-skills.md).
    """

    def __init__(
        self,
        skills: Skills,
        *,
        policy: SelectionPolicy | None = None,
        max_chars: int = DEFAULT_MAX_INJECTED_CHARS,
        selector: Selector = rank_skills,
        refresh_every: float | None = 5.0,
        name: str = "auto_skills",
    ) -> None:
        super().__init__(name)
        self._toolset = _toolset(skills, refresh_every)
        self._policy = policy
        self._max_chars = max_chars
        self._selector = selector

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """A copy of the message with the best skill before it, or ``None`` to keep it."""
        tools = await self._toolset.turn_tools(ReadonlyContext(invocation_context))
        catalog = tools.catalog
        message = user_message.model_copy(deep=True)
        # A first selection tokenizes the whole catalog: keep that off the event loop.
        match = await run_selection(
            catalog,
            self._selector,
            partial(
                apply_skill_injection,
                message,
                catalog,
                self._policy,
                self._max_chars,
                selector=self._selector,
            ),
        )
        if match is None:
            return None
        logger.info("injected skill %s (score %.3f)", match.name, match.score)
        self._toolset.code_gate.shown(invocation_context.invocation_id, match.name)
        return message

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Put the toolset's code gate on the agent before its first model call."""
        tools = await self._toolset.tools_for(callback_context)
        self._toolset.code_gate.guard(tools, agent)
        return None


async def agent_tool_registry(
    tools: LlmAgent | Sequence[ToolUnion], context: ReadonlyContext | None = None
) -> ToolMap[BaseTool]:
    """A tool registry of an agent's tools (or tools, functions and toolsets), resolved now."""
    if isinstance(tools, LlmAgent):
        return ToolMap(await tools.canonical_tools(context))
    resolved: list[BaseTool] = []
    for tool in tools:
        if isinstance(tool, BaseToolset):
            resolved += await tool.get_tools_with_prefix(context)
        elif isinstance(tool, BaseTool):
            resolved.append(tool)
        else:
            resolved.append(FunctionTool(func=tool))
    return ToolMap(resolved)


class SkillContextProvider:
    """One :class:`SkillContext` per turn, as an instruction provider and a toolset.

    ``strategies`` makes a turn's strategies from its message (default: ``[ByQuery(message)]``);
    a turn no skill fits gets ``fallback_instruction`` and no tools. ``toolset`` is one over the
    coordinator's catalog to share (else one of its own is made, with ``refresh_every``).

    Raises:
        ValueError: ``toolset`` serves another catalog than the coordinator's.
    """

    def __init__(
        self,
        coordinator: ContextCoordinator[BaseTool],
        *,
        strategies: Callable[[str], Sequence[Strategy]] | None = None,
        fallback_instruction: str = "",
        refresh_every: float | None = 5.0,
        toolset: SkillsToolset | None = None,
    ) -> None:
        self._skills = toolset or SkillsToolset(coordinator.catalog, refresh_every=refresh_every)
        if self._skills.catalog is not coordinator.catalog:
            raise ValueError("the toolset must serve the coordinator's catalog")
        self._coordinator = coordinator
        self._strategies = strategies or (lambda message: [ByQuery(message)])
        self._fallback = fallback_instruction
        self._turns: OrderedDict[str, SkillContext[BaseTool] | None] = OrderedDict()
        self.toolset: BaseToolset = _ContextToolset(self)  # for the agent's tools

    async def context(self, readonly_context: ReadonlyContext) -> SkillContext[BaseTool] | None:
        """The skill context of this turn (built once per invocation)."""
        turn = readonly_context.invocation_id
        if turn in self._turns:
            return self._turns[turn]
        await self._skills.turn_tools(readonly_context)
        content = readonly_context.user_content
        message = message_text(content) if content is not None else ""
        context = None
        if message.strip():
            strategies = self._strategies(message)
            coordinator = self._coordinator
            context = await run_selection(
                coordinator.catalog,
                coordinator.config.selector,
                partial(coordinator.resolve, strategies),
            )
        self._turns[turn] = context
        while len(self._turns) > REMEMBERED_TURNS:
            self._turns.popitem(last=False)
        if context is not None:
            self._skills.code_gate.shown(turn, context.skill_name)
        return context

    async def instruction(self, readonly_context: ReadonlyContext) -> str:
        """An ADK instruction provider: the turn's skill instruction."""
        context = await self.context(readonly_context)
        return self._fallback if context is None else context.system_instruction

    async def guard(self, tool_context: ToolContext) -> None:
        """Put the code gate on the agent of ``tool_context`` (its first model call is next)."""
        tools = await self._skills.tools_for(tool_context)
        self._skills.code_gate.guard(tools, tool_context.get_invocation_context().agent)


class _ContextToolset(BaseToolset):
    """The tools the turn's skill context binds."""

    def __init__(self, provider: SkillContextProvider) -> None:
        super().__init__()
        self._provider = provider

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        if readonly_context is None:
            return []
        context = await self._provider.context(readonly_context)
        return [] if context is None else list(context.active_tools)

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await self._provider.guard(tool_context)


def command_detail(tool_name: str, args: Mapping[str, Any]) -> str | None:
    """A call's ``command`` argument, when it has one (shell tools)."""
    del tool_name
    command = args.get("command")
    return command if isinstance(command, str) else None


def activate_skill(state: SessionState, skill_name: str | None) -> None:
    """Make ``skill_name`` the active skill of a session (``None``: no active skill)."""
    state[ACTIVE_SKILL_KEY] = skill_name


class SkillToolGuard(BasePlugin):
    """Refuses tool calls the active skill's ``allowed-tools`` do not permit.

    The active skill is the one loaded last in the session, or set with :func:`activate_skill`.
    Use it as a plugin, or per agent with ``before_tool`` and ``after_tool`` as callbacks;
    ``aliases``, ``detail`` and ``always_allowed``: docs/choosing-skills.md.
    """

    def __init__(
        self,
        skills: Skills,
        *,
        aliases: Mapping[str, str] | None = None,
        detail: Callable[[str, Mapping[str, Any]], str | None] = command_detail,
        always_allowed: Collection[str] = (),
        name: str = "skillfs_tool_guard",
    ) -> None:
        super().__init__(name=name)
        self._toolset = _toolset(skills, None)
        self._aliases = dict(aliases or {})
        self._detail = detail
        self._always_allowed = frozenset(always_allowed)

    def refusal(
        self,
        tool: BaseTool,
        args: Mapping[str, Any],
        state: SessionState,
        catalog: SkillCatalog | None = None,
    ) -> ToolResult | None:
        """``TOOL_NOT_PERMITTED`` for a call the active skill does not permit, else ``None``."""
        skill_name = state.get(ACTIVE_SKILL_KEY)
        if not skill_name or isinstance(tool, SkillTool) or tool.name in self._always_allowed:
            return None
        try:
            rules = (catalog or self._toolset.catalog).restricting_tools(skill_name)
        except SkillNotFoundError:
            message = (
                f"the active skill {skill_name!r} is no longer available, so only the skill "
                "tools may run; load a skill first"
            )
            return tool_error(TOOL_NOT_PERMITTED, message, skill_name=skill_name)
        detail = self._detail(tool.name, args)
        if permits_tool(rules, self._aliases.get(tool.name, tool.name), detail):
            return None
        call = f"calling {tool.name!r}" + (
            f" with {echoed(detail)!r}" if detail is not None else ""
        )
        allowed = ", ".join(rules)
        message = f"the active skill {skill_name!r} does not permit {call}; it allows: {allowed}"
        return tool_error(
            TOOL_NOT_PERMITTED,
            message,
            skill_name=skill_name,
            allowed_tools=list(rules),
        )

    def observe(self, tool: BaseTool, result: Any, state: SessionState) -> None:
        """Activate the skill a successful ``load_skill`` call just loaded (inline skills)."""
        loaded = (
            isinstance(tool, SkillTool)
            and tool.kind == LOAD_SKILL
            and isinstance(result, dict)
            and not is_error(result)
            and "instructions" in result
        )
        if loaded:
            activate_skill(state, result["skill_name"])

    async def before_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """An ``LlmAgent`` ``before_tool_callback``: refuse the call, or let it run."""
        catalog = await self._toolset.catalog_for(tool_context)
        return self.refusal(tool, args, tool_context.state, catalog)

    async def after_tool(
        self,
        tool: BaseTool,
        args: dict[str, Any],
        tool_context: ToolContext,
        tool_response: dict[str, Any],
    ) -> dict[str, Any] | None:
        """An ``LlmAgent`` ``after_tool_callback``: note which skill was loaded."""
        self.observe(tool, tool_response, tool_context.state)
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Plugin hook: :meth:`before_tool`."""
        return await self.before_tool(tool, tool_args, tool_context)

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Plugin hook: :meth:`after_tool`; the result is left as it is."""
        return await self.after_tool(tool, tool_args, tool_context, result)
