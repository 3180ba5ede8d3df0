"""A scripted model for running ADK agents offline: in tests, examples and demos.

``ScriptedLlm`` is a real ``BaseLlm``: a real ``LlmAgent`` and ``Runner`` drive it, tools run
for real, and every request it receives is kept for inspection::

    model = ScriptedLlm(steps=[call("list_skills"), say("There are two skills.")])
    agent = LlmAgent(name="assistant", model=model, tools=[SkillsToolset(catalog)])
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any, TypeAlias

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import Field

__all__ = ["ScriptedLlm", "call", "last_response", "say"]

Parts: TypeAlias = types.Part | Sequence[types.Part]
Step: TypeAlias = Parts | Callable[[LlmRequest], Parts]
"""What the model answers next: parts, or a function of the request it received."""

_call_ids = itertools.count(1)

_NO_TOKENS = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=0, candidates_token_count=0, total_token_count=0
)
"""Reported so that ADK's metrics log no warning per model call without usage."""


class ScriptedLlm(BaseLlm):
    """Answers each request with the next ``steps`` (consumed as the agent runs).

    ``requests`` records every request received, as sent (contents and config copied).
    """

    model: str = "scripted"
    steps: list[Step] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Yield the next step's parts as one model turn (``AssertionError`` when none is left)."""
        self.requests.append(_snapshot(llm_request))
        if not self.steps:
            raise AssertionError("the scripted model ran out of steps")
        step = self.steps.pop(0)
        parts = step(llm_request) if callable(step) else step
        listed = [parts] if isinstance(parts, types.Part) else list(parts)
        yield LlmResponse(
            content=types.Content(role="model", parts=listed), usage_metadata=_NO_TOKENS
        )


def call(name: str, /, **args: Any) -> types.Part:
    """A function call with a unique id."""
    return types.Part(
        function_call=types.FunctionCall(id=f"call-{next(_call_ids)}", name=name, args=args)
    )


def say(text: str) -> types.Part:
    """A text answer."""
    return types.Part(text=text)


def last_response(request: LlmRequest, name: str) -> dict[str, Any]:
    """The newest response of the tool ``name`` in a request's contents.

    Raises:
        LookupError: The request holds no such response.
    """
    for content in reversed(request.contents):
        for part in content.parts or []:
            if part.function_response and part.function_response.name == name:
                return dict(part.function_response.response or {})
    raise LookupError(f"no {name} response in the request")


def _snapshot(request: LlmRequest) -> LlmRequest:
    """The request as sent (its tools dict holds live tools, so it is not deep-copied)."""
    return request.model_copy(
        update={
            "contents": [content.model_copy(deep=True) for content in request.contents],
            "config": request.config.model_copy(deep=True),
        }
    )
