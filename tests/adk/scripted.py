"""Helpers that drive a real ADK LlmAgent + InMemoryRunner offline with skillfs's ScriptedLlm."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.adk.agents import BaseAgent, LlmAgent
from google.adk.events import Event
from google.adk.models import BaseLlm, LlmRequest
from google.adk.plugins import BasePlugin
from google.adk.runners import InMemoryRunner
from google.adk.tools.base_toolset import BaseToolset
from google.genai import types

from skills_core.adk.testing import ScriptedLlm, call, last_response, say

__all__ = [
    "Conversation",
    "ScriptedLlm",
    "call",
    "calls",
    "declarations",
    "final_text",
    "last_response",
    "responses",
    "say",
    "system_text",
]


def declarations(request: LlmRequest) -> dict[str, types.FunctionDeclaration]:
    """The function declarations the model was shown, by name."""
    found = {}
    for tool in request.config.tools or []:
        assert isinstance(tool, types.Tool)
        for declaration in tool.function_declarations or []:
            assert declaration.name is not None
            found[declaration.name] = declaration
    return found


def system_text(request: LlmRequest) -> str:
    """The system instruction as plain text."""
    instruction = request.config.system_instruction
    if instruction is None:
        return ""
    if isinstance(instruction, str):
        return instruction
    assert isinstance(instruction, types.Content)
    return "".join(part.text or "" for part in instruction.parts or [])


class Conversation:
    """One session with an agent, turn by turn."""

    def __init__(
        self,
        agent: BaseAgent,
        plugins: Sequence[BasePlugin] = (),
        *,
        user_id: str = "user",
        runner: InMemoryRunner | None = None,
    ) -> None:
        self.runner = runner or InMemoryRunner(
            agent=agent, app_name="skillfs-tests", plugins=list(plugins)
        )
        self.user_id = user_id
        self.session_id: str | None = None

    async def send(
        self, message: str | types.Content, state_delta: dict[str, Any] | None = None
    ) -> list[Event]:
        """Run one turn (``state_delta`` changes the session state first); its events."""
        if self.session_id is None:
            session = await self.runner.session_service.create_session(
                app_name="skillfs-tests", user_id=self.user_id
            )
            self.session_id = session.id
        content = (
            types.Content(role="user", parts=[types.Part(text=message)])
            if isinstance(message, str)
            else message
        )
        return [
            event
            async for event in self.runner.run_async(
                user_id=self.user_id,
                session_id=self.session_id,
                new_message=content,
                state_delta=state_delta,
            )
        ]

    async def close(self) -> None:
        await self.runner.close()


async def one_turn(model: BaseLlm, toolset: BaseToolset, message: str) -> list[Event]:
    """One user turn with a fresh agent holding ``toolset``, its model ``model``."""
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    try:
        return await chat.send(message)
    finally:
        await chat.close()


def calls(events: Sequence[Event]) -> list[tuple[str, dict[str, Any]]]:
    """Every function call in ``events``: ``(name, args)``."""
    return [(c.name or "", dict(c.args or {})) for e in events for c in e.get_function_calls()]


def responses(events: Sequence[Event]) -> list[tuple[str, dict[str, Any]]]:
    """Every function response in ``events``: ``(name, response)``."""
    return [
        (r.name or "", dict(r.response or {})) for e in events for r in e.get_function_responses()
    ]


def final_text(events: Sequence[Event]) -> str:
    """The text of the last final response."""
    finals = [e for e in events if e.is_final_response() and e.content and e.content.parts]
    assert finals, "the turn produced no final response"
    parts = finals[-1].content.parts if finals[-1].content else None
    return "".join(part.text or "" for part in parts or [])
