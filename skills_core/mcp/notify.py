"""Telling connected clients that the skills changed, in both eras of the protocol.

2026-07-28 clients open a ``subscriptions/listen`` stream and get their events from the
subscription bus. Handshake-era clients (2025-11-25 and before) get a bare
``notifications/resources/list_changed`` on their connection: the session of each
``initialize`` is remembered for that (the most recent ones, so a long-running HTTP server
does not keep every connection it ever had).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged

MAX_HANDSHAKE_SESSIONS = 256
"""Handshake-era connections told about changes; older ones are forgotten."""


class ListChanged:
    """Fans one "the skills changed" out to every client that can hear it."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        """The ``subscriptions/listen`` bus."""
        self._sessions: deque[ServerSession] = deque(maxlen=MAX_HANDSHAKE_SESSIONS)
        self._closed = False

    async def remember_sessions(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Server middleware: keep each handshake-era connection's session."""
        result = await call_next(ctx)
        if ctx.method == "initialize":
            self._sessions.append(ctx.session)
        return result

    async def publish(self) -> None:
        """Tell every client the resources (the skills) changed."""
        if self._closed:
            return
        await self.bus.publish(ResourcesListChanged())
        for session in list(self._sessions):
            await session.send_resource_list_changed()

    def close(self) -> None:
        """Stop telling anyone."""
        self._closed = True
        self._sessions.clear()
