"""Running a :class:`~skills_core.mcp.server.SkillServer` on stdio or streamable HTTP.

HTTP binds to loopback unless told otherwise; the SDK then also refuses requests whose
``Host`` or ``Origin`` is not local (DNS rebinding protection).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

import uvicorn
from mcp.server.stdio import stdio_server

from skills_core.mcp.server import SkillServer

LOOPBACK = "127.0.0.1"
DEFAULT_PATH = "/mcp"


async def serve_stdio(server: SkillServer) -> None:
    """Serve one client over this process's stdin and stdout until it disconnects."""
    lowlevel = server.lowlevel
    async with stdio_server() as (read, write):
        await lowlevel.run(read, write, lowlevel.create_initialization_options())


@dataclass(frozen=True)
class HttpEndpoint:
    """A running HTTP server: its URL, and a way to wait until it stops (Ctrl-C)."""

    url: str
    task: asyncio.Task[None]

    async def stopped(self) -> None:
        """Return once the server stopped serving."""
        await asyncio.shield(self.task)


@contextlib.asynccontextmanager
async def http_server(
    server: SkillServer, *, host: str = LOOPBACK, port: int = 0, path: str = DEFAULT_PATH
) -> AsyncIterator[HttpEndpoint]:
    """Serve streamable HTTP while the block runs.

    ``port=0`` picks a free port; the endpoint's URL names the one chosen.

    Raises:
        OSError: ``host`` is not a name or address of this machine, or the port is taken
            (:func:`socket.gaierror` when the name does not resolve).
    """
    app = server.lowlevel.streamable_http_app(streamable_http_path=path, host=host)
    listener = await _listen(host, port)
    bound = listener.getsockname()[1]
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(web.serve(sockets=[listener]))
    try:
        while not web.started:
            if task.done():
                await task  # startup failed: raise its error
                raise RuntimeError("the HTTP server stopped before it started")
            await asyncio.sleep(0.01)
        yield HttpEndpoint(f"http://{address(host, bound)}{path}", task)
    finally:
        web.should_exit = True
        await task
        listener.close()


def address(host: str, port: int) -> str:
    """``host:port``, the host in brackets when it is an IPv6 address."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def _listen(host: str, port: int) -> socket.socket:
    """A listening socket; a host name is resolved off the event loop."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    loop = asyncio.get_running_loop()
    found = await loop.getaddrinfo(host, port, family=family, type=socket.SOCK_STREAM)
    listener = socket.create_server(found[0][4], family=family)
    listener.setblocking(False)
    return listener
