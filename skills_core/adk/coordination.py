"""A ContextCoordinator per turn of an ADK agent: the skill's instruction and only its tools.

At the start of each turn the user's message picks a skill (by the strategies given, by
default ``ByQuery(message)``); the agent's instruction becomes that skill's framed
instruction and its toolset offers exactly the tools the instruction names, so the model is
never told to use a tool it cannot call::

    tools = await agent_tool_registry([knowledge, transfer_call, crm_toolset])
    skills = SkillContextProvider(ContextCoordinator(catalog, tools))
    agent = LlmAgent(
        name="dispatcher", model=..., instruction=skills.instruction, tools=[skills.toolset]
    )

A turn no skill fits gets an empty instruction (or ``fallback_instruction``) and no tools.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial

from google.adk.agents.llm_agent import LlmAgent, ToolUnion
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.function_tool import FunctionTool

from skills_core.context.search import run_selection
from skills_core.context.turns import (
    ByQuery,
    ContextCoordinator,
    SkillContext,
    Strategy,
    ToolMap,
    message_text,
)
from skills_core.tools.refresh import RefreshGate

Strategies = Callable[[str], Sequence[Strategy]]
"""The strategies to try for a turn, from the user's message."""

_REMEMBERED_TURNS = 64


async def agent_tool_registry(
    tools: LlmAgent | Sequence[ToolUnion], context: ReadonlyContext | None = None
) -> ToolMap[BaseTool]:
    """A tool registry of an agent's tools (or a list of tools, functions and toolsets).

    Toolsets are asked for their tools once, now, with ``context`` (``None``: no session).
    """
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

    Args:
        coordinator: Chooses the skill and binds its tools.
        strategies: The strategies for a turn's message (default: ``[ByQuery(message)]``).
        fallback_instruction: The instruction of a turn no skill fits.
        refresh_every: Refresh the catalog at the start of a turn when this many seconds
            passed since the last refresh (``0``: every turn; ``None``: never).
    """

    def __init__(
        self,
        coordinator: ContextCoordinator[BaseTool],
        *,
        strategies: Strategies | None = None,
        fallback_instruction: str = "",
        refresh_every: float | None = 5.0,
    ) -> None:
        self._coordinator = coordinator
        self._strategies = strategies or (lambda message: [ByQuery(message)])
        self._fallback = fallback_instruction
        self._refresh = RefreshGate(coordinator.catalog, refresh_every)
        self._turns: OrderedDict[str, SkillContext[BaseTool] | None] = OrderedDict()
        self.toolset: BaseToolset = _ContextToolset(self)
        """Offers the tools of the turn's skill; put it in the agent's ``tools``."""

    @property
    def coordinator(self) -> ContextCoordinator[BaseTool]:
        """The coordinator choosing skills."""
        return self._coordinator

    async def context(self, readonly_context: ReadonlyContext) -> SkillContext[BaseTool] | None:
        """The skill context of this turn (built once per invocation)."""
        turn = readonly_context.invocation_id
        if turn in self._turns:
            return self._turns[turn]
        await self._refresh.maybe_refresh()
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
        while len(self._turns) > _REMEMBERED_TURNS:
            self._turns.popitem(last=False)
        return context

    async def instruction(self, readonly_context: ReadonlyContext) -> str:
        """An ADK instruction provider: the turn's skill instruction."""
        context = await self.context(readonly_context)
        return self._fallback if context is None else context.system_instruction


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
