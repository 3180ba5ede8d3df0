"""Running a :class:`~skills_core.mcp._server.SkillServer` on stdio or streamable HTTP.

Every stdio line that is no JSON-RPC message is answered as HTTP answers it (docs/mcp.md);
HTTP binds to loopback unless told otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
import mcp_types as types
import pydantic_core
import uvicorn
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from backends._errors import echoed
from skills_core.mcp._server import SkillServer

LOOPBACK = "127.0.0.1"
DEFAULT_PATH = "/mcp"


async def serve_stdio(server: SkillServer) -> None:
    """Serve one client over this process's stdin and stdout until it disconnects."""
    lowlevel = server.lowlevel
    # fd 0 stays in place: the server's script runners give every child /dev/null as stdin.
    # Wrapping it reads nothing; its lines are read off the loop (_read_messages).
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115, ASYNC230
    to_session, received = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    try:
        # The SDK's transport writes stdout; it gets no stdin lines, which it would parse again.
        async with (
            stdio_server(stdin=anyio.wrap_file(io.StringIO())) as (_, write),
            anyio.create_task_group() as group,
        ):
            group.start_soon(_read_messages, stdin, to_session, write)
            await lowlevel.run(received, write, lowlevel.create_initialization_options())
    except* BrokenPipeError:  # the client went away while it was being answered
        pass


async def _read_messages(
    stdin: TextIO,
    session: MemoryObjectSendStream[SessionMessage | Exception],
    answers: MemoryObjectSendStream[SessionMessage],
) -> None:
    """Hand the session each line that is a JSON-RPC message, parsed once; answer every other.

    Lines are read in the loop's executor, so Ctrl-C ends the serving at once (anyio's file
    would wait for the client's next line).
    """
    loop = asyncio.get_running_loop()
    async with session:
        while line := await loop.run_in_executor(None, stdin.readline):
            if not line.strip():
                continue
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValidationError as exc:
                answer = _answer_to(line, exc)
                if answer is not None:
                    with contextlib.suppress(anyio.ClosedResourceError):
                        await answers.send(SessionMessage(answer))
                continue
            await session.send(SessionMessage(message))


def _answer_to(line: str, error: ValidationError) -> types.JSONRPCError | None:
    """The error answering a line that is no JSON-RPC message, or None for a bad response."""
    try:
        message: Any = pydantic_core.from_json(line)
    except ValueError:  # not JSON, or nested past the parser's depth
        return _error(None, types.PARSE_ERROR, "Parse error: the line is not JSON")
    if isinstance(message, dict) and ("result" in message or "error" in message):
        return None  # a response is never answered
    ident = message.get("id") if isinstance(message, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        ident = None
    first = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"][1:])
    reason = f"{field}: {first['msg']}" if field else first["msg"]
    message = f"Validation error: not a JSON-RPC message ({echoed(reason)})"
    return _error(ident, types.INVALID_PARAMS, message)


def _error(ident: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message)
    )


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
    """Serve streamable HTTP while the block runs (``port=0``: a free one, in the URL).

    Raises:
        OSError: ``host`` is not of this machine, or the port is taken.
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
