"""Fork-mode skills: run a skill in a sub-agent and return its final answer (docs/adk.md).

``context: fork`` gives the sub-agent the skill and the request, ``fork_with_context`` the
conversation too; ``agent`` and ``model`` are resolved by the user's resolvers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias, TypeVar, cast

from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event
from google.adk.models import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from skills_core._codes import AGENT_NOT_FOUND, FORK_FAILED, MODEL_NOT_FOUND
from skills_core.tools._results import ToolResult, tool_error

logger = logging.getLogger("skillfs.adk")

FORK_MODES = ("fork", "fork_with_context")

T = TypeVar("T")
Maybe: TypeAlias = T | Awaitable[T]

AgentResolver = Callable[[str | None, BaseLlm | str | None], Maybe[BaseAgent | None]]
"""``(agent name or None, model or None) -> agent``; ``None`` when no such agent exists."""

ModelResolver = Callable[[str], Maybe[BaseLlm | str | None]]
"""``model name -> model`` (a BaseLlm or a name ADK resolves); ``None`` when unknown."""


class Forker:
    """Resolves and runs sub-agents for fork-mode skills.

    Without ``agents`` a default ``LlmAgent`` on the caller's model runs the skill; without a
    resolver, a skill naming an agent or model is refused.
    """

    def __init__(
        self, agents: AgentResolver | None = None, models: ModelResolver | None = None
    ) -> None:
        self._agents = agents
        self._models = models

    async def run(self, loaded: ToolResult, request: str, tool_context: ToolContext) -> ToolResult:
        """Run the skill of a whole ``load_skill`` result on ``request``: the final answer."""
        name, frontmatter = loaded["skill_name"], loaded["frontmatter"]
        mode = frontmatter["context"]
        agent = await self._agent(name, frontmatter, tool_context)
        if not isinstance(agent, BaseAgent):
            return agent
        history = tool_context.session.events if mode == "fork_with_context" else ()
        try:
            text = f"{loaded['instructions'].rstrip()}\n\n---\nRequest: {request}"
            message = types.Content(role="user", parts=[types.Part(text=text)])
            answer = await _run_agent(agent, tool_context, history, message)
        except Exception as exc:  # a sub-agent's failure is the model's to hear about
            logger.warning("fork of skill %r failed", name, exc_info=exc)
            return tool_error(FORK_FAILED, f"the sub-agent failed: {exc}")
        if isinstance(answer, dict):
            return answer
        return {"skill_name": name, "context": mode, "agent": agent.name, "result": answer}

    async def _agent(
        self, skill_name: str, frontmatter: dict[str, Any], tool_context: ToolContext
    ) -> BaseAgent | ToolResult:
        wanted_agent, wanted_model = frontmatter.get("agent"), frontmatter.get("model")
        model: BaseLlm | str | None = None
        if wanted_model:
            model = await _maybe(self._models(wanted_model)) if self._models else None
            if model is None:
                return tool_error(
                    MODEL_NOT_FOUND, f"no model {wanted_model!r} for skill {skill_name!r}"
                )
        if self._agents is not None:
            agent: BaseAgent | None = await _maybe(self._agents(wanted_agent, model))
            if agent is None:
                name = wanted_agent or "default"
                return tool_error(AGENT_NOT_FOUND, f"no {name!r} agent for skill {skill_name!r}")
            return agent
        if wanted_agent:
            return tool_error(
                AGENT_NOT_FOUND,
                f"skill {skill_name!r} asks for agent {wanted_agent!r}, but no agent "
                "resolver is configured",
            )
        caller = tool_context.get_invocation_context().agent
        if model is None and isinstance(caller, LlmAgent):
            model = caller.canonical_model
        return LlmAgent(
            name="skill_" + re.sub(r"\W", "_", skill_name),  # an identifier, as ADK wants
            model=model or "",
            description=f"Runs the {skill_name} skill.",
            instruction="Carry out the skill below for the request that follows it.",
        )


async def _maybe(value: Maybe[T]) -> T:
    if isinstance(value, Awaitable):
        return cast(T, await value)
    return value


async def _run_agent(
    agent: BaseAgent,
    tool_context: ToolContext,
    history: Sequence[Event],
    message: types.Content,
) -> str | ToolResult:
    parent = tool_context.get_invocation_context()
    runner = Runner(app_name=parent.app_name, agent=agent, session_service=InMemorySessionService())
    try:
        session = await runner.session_service.create_session(
            app_name=parent.app_name, user_id=parent.user_id
        )
        for event in history:
            if event.content is not None:
                copied = Event(
                    author=event.author, invocation_id=event.invocation_id, content=event.content
                )
                await runner.session_service.append_event(session, copied)
        texts: list[str] = []
        errors: list[str] = []
        async for event in runner.run_async(
            user_id=session.user_id, session_id=session.id, new_message=message
        ):
            if event.error_message:
                errors.append(event.error_message)
            if event.is_final_response() and event.content and event.content.parts:
                texts += [
                    part.text for part in event.content.parts if part.text and not part.thought
                ]
    finally:
        await runner.close()
    if not texts and errors:
        return tool_error(FORK_FAILED, f"the sub-agent failed: {errors[-1]}")
    return "\n".join(texts)
