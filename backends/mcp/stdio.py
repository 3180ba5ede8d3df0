"""A stdio transport for the SDK's client that reads no line past a limit.

It does what the SDK's ``stdio_client`` does: it spawns the server in a session of its own with
our stderr, exchanges one JSON-RPC message a line, reads no further while a message waits for
the session, and at the end gives the server 2 s to exit, then SIGTERMs its process group, and
SIGKILLs it 2 s later. Two differences: at the end every pipe closes at once (the server reads
end of file, and a write of its fails with EPIPE; the SDK drains stdout instead), and stdout is
read in chunks, so a line longer than ``max_line_bytes`` is refused, where the SDK reads each
line whole, however long. Then every request still waiting for an answer gets a parse error
carrying ``refusal``, reading stops and the connection ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable

import anyio
import mcp_types as types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

_GRACE_SECONDS = 2.0
"""How long a server may take to exit after its stdin closes, and after SIGTERM (the SDK's)."""

_FLUSH_SECONDS = 0.5
"""How long messages already handed to the transport may take to reach the server's stdin."""

_PIPE_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)

Received = SessionMessage | Exception
Streams = tuple[MemoryObjectReceiveStream[Received], MemoryObjectSendStream[SessionMessage]]


@contextlib.asynccontextmanager
async def bounded_stdio(
    server: StdioServerParameters,
    *,
    max_line_bytes: int,
    refusal: str,
    on_end: Callable[[], None],
) -> AsyncIterator[Streams]:
    """Run ``server`` and exchange messages with it; ``on_end`` is called when its stdout ends.

    Its stdout ends at end of file, at a line past ``max_line_bytes`` (see the module
    docstring), or when the session stops listening. Nothing outlives the context.
    """
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=sys.stderr,
        cwd=server.cwd,
        start_new_session=True,
    )
    pipes = _Pipes(process, server, max_line_bytes, refusal)
    async with anyio.create_task_group() as group:
        group.start_soon(pipes.read, on_end)
        group.start_soon(pipes.write)
        try:
            yield pipes.from_server, pipes.to_server
        finally:
            with anyio.CancelScope(shield=True):
                await pipes.close()
            group.cancel_scope.cancel()


class _Pipes:
    """The server's stdin and stdout, bridged to the session's memory streams."""

    def __init__(
        self, process: Process, server: StdioServerParameters, limit: int, refusal: str
    ) -> None:
        self.process = process
        self.server = server
        self.limit = limit
        self.refusal = refusal
        self.to_session, self.from_server = anyio.create_memory_object_stream[Received](0)
        self.to_server, self.from_session = anyio.create_memory_object_stream[SessionMessage](0)
        self.pending: set[types.RequestId] = set()
        self.written = anyio.Event()

    async def read(self, on_end: Callable[[], None]) -> None:
        """Hand stdout to the session line by line; refuse the pending requests past the limit."""
        assert self.process.stdout is not None
        refused = False
        try:
            async with self.to_session:
                refused = await self._deliver_lines()
                if refused:
                    error = types.ErrorData(code=types.PARSE_ERROR, message=self.refusal)
                    for request_id in list(self.pending):
                        answer = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
                        await self.to_session.send(SessionMessage(answer))
        except _PIPE_ERRORS:
            pass  # the session is gone
        finally:
            on_end()

    async def write(self) -> None:
        """Send the session's messages to stdin, one a line; requests wait for answers."""
        assert self.process.stdin is not None
        try:
            async with self.from_session:
                async for session_message in self.from_session:
                    message = session_message.message
                    if isinstance(message, types.JSONRPCRequest):
                        self.pending.add(message.id)
                    line = message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    encoding = self.server.encoding
                    data = line.encode(encoding, self.server.encoding_error_handler)
                    await self.process.stdin.send(data)
        except _PIPE_ERRORS:
            await self.to_session.aclose()  # the session sees the end instead of waiting
        finally:
            self.written.set()

    async def _deliver_lines(self) -> bool:
        """Hand each line of stdout to the session until it ends; True at a line too long."""
        assert self.process.stdout is not None
        line = bytearray()
        while True:
            try:
                chunk = await self.process.stdout.receive()
            except (anyio.EndOfStream, *_PIPE_ERRORS):
                return False
            *complete, rest = chunk.split(b"\n")
            for part in complete:
                line += part
                if len(line) > self.limit:
                    return True
                text = line.decode(self.server.encoding, self.server.encoding_error_handler)
                line.clear()
                await self.to_session.send(_parsed(text, self.pending))
            line += rest
            if len(line) > self.limit:
                return True

    async def close(self) -> None:
        """Let accepted messages reach the server, stop it, release the streams."""
        self.from_server.close()
        self.to_server.close()
        with anyio.move_on_after(_FLUSH_SECONDS):
            await self.written.wait()
        await _stop(self.process)
        for stream in (self.from_server, self.to_server, self.to_session, self.from_session):
            await stream.aclose()


def _parsed(line: str, pending: set[types.RequestId]) -> Received:
    """One line as a message (an answer settles its request), or the error it raised."""
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        return exc
    if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
        pending.discard(message.id)
    return SessionMessage(message)


async def _stop(process: Process) -> None:
    """Close the pipes: the server reads end of file, and its writes fail with EPIPE.

    A server still running after the grace period has its process group sent SIGTERM, and
    SIGKILL after another.
    """
    async with anyio.create_task_group() as group:
        group.start_soon(process.aclose)  # closes every pipe, then waits for the exit
        if not await _exited(process):
            _signal_group(process, signal.SIGTERM)
            await _exited(process)
            _signal_group(process, signal.SIGKILL)  # the server, or what it left in its group


def _signal_group(process: Process, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


async def _exited(process: Process) -> bool:
    """Whether the process exits within the grace period."""
    with anyio.move_on_after(_GRACE_SECONDS):
        await process.wait()
    return process.returncode is not None
