"""Server middleware for tests: count what clients ask, and corrupt what they get."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
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


def _same_size(text: str) -> str:
    return text.replace("e", "3")


class Corrupter:
    """A server-side wrapper that changes the bytes of chosen resources as they go out.

    ``change`` makes the text served from the real one: by default the same size, other bytes.
    """

    def __init__(self, *uris: str, change: Callable[[str], str] = _same_size) -> None:
        self.uris = set(uris)
        self.change = change

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "resources/read" and (ctx.params or {}).get("uri") in self.uris:
            assert isinstance(result, dict)
            content = result["contents"][0]
            content["text"] = self.change(content["text"])
        return result


class EntryRewriter:
    """Rewrites the entry of one skill in every ``skills/list`` and ``skills/get`` answer.

    ``rewrite`` gets a copy of the entry (the server's own is left as it is) and changes it.
    """

    def __init__(self, uri: str, rewrite: Callable[[dict[str, Any]], None]) -> None:
        self.uri = uri
        self.rewrite = rewrite

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method in ("skills/list", "skills/get"):
            assert isinstance(result, dict)
            if "skill" in result:
                result = {**result, "skill": self._entry(result["skill"])}
            else:
                result = {**result, "skills": [self._entry(entry) for entry in result["skills"]]}
        return result

    def _entry(self, entry: dict[str, Any]) -> dict[str, Any]:
        if entry["uri"] != self.uri:
            return entry
        entry = copy.deepcopy(entry)
        self.rewrite(entry)
        return entry
