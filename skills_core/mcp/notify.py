"""Telling connected clients that the skills changed, in both eras of the protocol.

2026-07-28 clients open a ``subscriptions/listen`` stream and get their events from the
subscription bus. Handshake-era clients (2025-11-25 and before) get a bare
``notifications/resources/list_changed`` on their connection: the session of each
``initialize`` is remembered for that (the most recent ones, so a long-running HTTP server
does not keep every connection it ever had). When the skills a model may name change, so does
the tools' ``skill_name`` enum, and ``notifications/tools/list_changed`` goes out the same way.
Notifications never wait on one client: each connection is told concurrently and gets
:data:`SEND_TIMEOUT` seconds to take them; a connection that does not (a client that never
reads its stream, whose buffers are full) or that is gone is forgotten, and told nothing more.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ResourcesListChanged,
    ToolsListChanged,
)

MAX_HANDSHAKE_SESSIONS = 256
"""Handshake-era connections told about changes; older ones are forgotten."""
SEND_TIMEOUT = 1.0
"""Seconds one handshake-era connection may take to accept a notification."""

logger = logging.getLogger("skillfs.mcp")


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

    async def publish(self, *, resources: bool = True, tools: bool = False) -> None:
        """Tell every client the resources (the skills) changed, and or the tools did."""
        if self._closed:
            return
        if resources:
            await self.bus.publish(ResourcesListChanged())
        if tools:
            await self.bus.publish(ToolsListChanged())
        sessions = list(self._sessions)
        told = await asyncio.gather(*(_tell(session, resources, tools) for session in sessions))
        for session, heard in zip(sessions, told, strict=True):
            if not heard and session in self._sessions:
                self._sessions.remove(session)

    def close(self) -> None:
        """Stop telling anyone."""
        self._closed = True
        self._sessions.clear()


async def _tell(session: ServerSession, resources: bool, tools: bool) -> bool:
    """Send the list-changed notifications; False when the connection did not take them in time."""
    try:
        async with asyncio.timeout(SEND_TIMEOUT):
            if resources:
                await session.send_resource_list_changed()
            if tools:
                await session.send_tool_list_changed()
    except TimeoutError:
        logger.info("a client took no notification for %s s: it is told nothing more", SEND_TIMEOUT)
        return False
    except Exception as exc:  # a closed connection: nothing more to tell it
        logger.debug("a client could not be told of a change: %r", exc)
        return False
    return True
