"""Server middleware for tests: count what clients ask, and corrupt what they get."""

from __future__ import annotations

from collections import Counter
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext


class RequestLog:
    """Counts every request a server receives, by method."""

    def __init__(self) -> None:
        self.methods: Counter[str] = Counter()

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.request_id is not None:
            self.methods[ctx.method] += 1
        return await call_next(ctx)

    def take(self) -> dict[str, int]:
        """The counts so far, then start again from zero."""
        counts = dict(self.methods)
        self.methods.clear()
        return counts


class Corrupter:
    """A server-side wrapper that changes the bytes of chosen resources as they go out."""

    def __init__(self, *uris: str) -> None:
        self.uris = set(uris)

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "resources/read" and (ctx.params or {}).get("uri") in self.uris:
            assert isinstance(result, dict)
            content = result["contents"][0]
            content["text"] = content["text"].replace("e", "3")  # same size, other bytes
        return result
