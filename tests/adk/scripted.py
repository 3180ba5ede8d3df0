"""A scripted model and helpers that drive a real ADK LlmAgent + InMemoryRunner offline."""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field

Step = types.Part | Sequence[types.Part] | Callable[[LlmRequest], types.Part | Sequence[types.Part]]
"""What the model answers next: parts, or a function of the request it received."""

_ids = itertools.count(1)


class ScriptedLlm(BaseLlm):
    """A BaseLlm that answers with prepared steps and keeps every request it was sent."""

    model: str = "scripted"
    steps: list[Any] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(_snapshot(llm_request))
        if not self.steps:
            raise AssertionError("the scripted model ran out of steps")
        step = self.steps.pop(0)
        if callable(step):
            step = step(llm_request)
        parts = [step] if isinstance(step, types.Part) else list(step)
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def _snapshot(request: LlmRequest) -> LlmRequest:
    """The request as sent (its tools dict holds live tools, so it is not deep-copied)."""
    return request.model_copy(
        update={
            "contents": [content.model_copy(deep=True) for content in request.contents],
            "config": request.config.model_copy(deep=True),
        }
    )


def call(name: str, **args: Any) -> types.Part:
    """A function call part with a unique id."""
    return types.Part(
        function_call=types.FunctionCall(id=f"call-{next(_ids)}", name=name, args=args)
    )


def say(text: str) -> types.Part:
    """A text part."""
    return types.Part(text=text)


def last_response(request: LlmRequest, name: str) -> dict[str, Any]:
    """The newest function response named ``name`` in a request's contents."""
    for content in reversed(request.contents):
        for part in content.parts or []:
            if part.function_response and part.function_response.name == name:
                return dict(part.function_response.response or {})
    raise AssertionError(f"no {name} response in the request")


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

    def __init__(self, agent: BaseAgent) -> None:
        self.runner = InMemoryRunner(agent=agent, app_name="skillfs-tests")
        self.session_id: str | None = None

    async def send(self, message: str | types.Content) -> list[Event]:
        """Run one turn and return its events."""
        if self.session_id is None:
            session = await self.runner.session_service.create_session(
                app_name="skillfs-tests", user_id="user"
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
                user_id="user", session_id=self.session_id, new_message=content
            )
        ]

    async def close(self) -> None:
        await self.runner.close()


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
