"""Counting a loopback server's open client connections, to test that closing lets go of them."""

from __future__ import annotations

import asyncio

from tests.remote.servers import StaticServer

_ESTABLISHED = "01"


def open_connections_to(port: int) -> int:
    """Client-side TCP connections to ``port`` on loopback that are still established."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as lines:
                next(lines)
                for line in lines:
                    fields = line.split()
                    remote_port = int(fields[2].rsplit(":", 1)[1], 16)
                    count += remote_port == port and fields[3] == _ESTABLISHED
        except FileNotFoundError:
            continue
    return count


async def connections(server: StaticServer) -> int:
    """Client connections to ``server`` still established, counted off the event loop."""
    return await asyncio.to_thread(open_connections_to, int(server.url.rsplit(":", 1)[1]))
