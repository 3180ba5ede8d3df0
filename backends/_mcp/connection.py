"""One MCP client connection, held open by a background task, opened on first use.

The SDK's task groups must be entered and left by one task, so one task holds the connection
until :meth:`aclose`; a stdio connection that ended is opened again on the next call. SDK
failures become :class:`~backends._errors.StorageError`. An answer is read no further than
``max_answer_bytes`` (over stdio the connection then ends); the handshake has one deadline.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types as types
from anyio.abc import Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from backends._errors import (
    LimitExceededError,
    ResourceNotFoundError,
    SkillNotFoundError,
    StorageError,
)
from backends._mcp.extension import SKILLS_EXTENSION

ResultT = TypeVar("ResultT", bound=BaseModel)

_STREAM_READ_SECONDS = 300.0  # how long an HTTP response stream may stay silent (the SDK's)
_OVER_LIMIT = "an answer went past the"  # how _too_large begins: found in the SDK's parse error


class McpConnection:
    """A connection to one MCP server (a URL, :class:`mcp.StdioServerParameters`, …)."""

    def __init__(
        self,
        server: Any,
        *,
        location: str,
        timeout: float,
        headers: Mapping[str, str] | None = None,
        max_answer_bytes: int,
    ) -> None:
        self._server = server
        self._location = location
        self._timeout = timeout
        self._headers = dict(headers or {})
        self._max_answer_bytes = max_answer_bytes
        self._client: asyncio.Future[Client] | None = None
        self._task: asyncio.Task[None] | None = None
        self._abandoned: set[asyncio.Task[None]] = set()
        self._closing = asyncio.Event()

    async def request(self, request: Any, result_type: type[ResultT], *, missing: str) -> ResultT:
        """Send one request; an "invalid params" answer raises SkillNotFoundError(``missing``)."""
        client = await self._connect()
        with self._translated(missing=missing, not_found=SkillNotFoundError):
            return await client.session.send_request(request, result_type)

    async def read(self, uri: str, *, missing: str) -> bytes:
        """The bytes of one resource (ResourceNotFoundError, saying ``missing``, when none)."""
        client = await self._connect()
        where = f"{self._location}:{uri}"
        with self._translated(missing=missing, not_found=ResourceNotFoundError, location=where):
            result = await client.session.read_resource(uri)
        contents = [item for item in result.contents if item.uri == uri] or result.contents[:1]
        if not contents:
            raise StorageError(f"the server sent no content for {uri}", location=self._location)
        item = contents[0]
        if isinstance(item, types.TextResourceContents):
            return item.text.encode("utf-8")
        try:
            return base64.b64decode(item.blob, validate=True)
        except binascii.Error as exc:
            raise StorageError(f"bad base64 for {uri}: {exc}", location=self._location) from exc

    async def offers_skills(self) -> bool:
        """True when the server advertises the skills extension."""
        client = await self._connect()
        extensions = client.server_capabilities.extensions or {}
        return SKILLS_EXTENSION in extensions

    async def change_events(self) -> AsyncIterator[None] | None:
        """Signals when the server says its resources changed (``subscriptions/listen``)."""
        client = await self._connect()
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return None
        stack = contextlib.AsyncExitStack()
        try:
            subscription = await stack.enter_async_context(
                client.listen(resources_list_changed=True)
            )
        except (ListenNotSupportedError, MCPError, SubscriptionLost):
            return None

        async def events() -> AsyncIterator[None]:
            async with stack:
                yield None
                with self._translated(missing="", not_found=StorageError):
                    async for _ in subscription:
                        yield None

        return events()

    async def aclose(self) -> None:
        """Close the connection (a stdio server process exits); later calls reopen it."""
        self._closing.set()
        if self._task is not None:
            self._abandon(self._task)
        self._task = self._client = None
        if self._abandoned:
            await asyncio.wait(self._abandoned)

    async def _connect(self) -> Client:
        if self._task is None or self._task.done() or self._closing.is_set():
            if self._task is not None:
                self._abandon(self._task)  # a connection that ended, still stopping its server
            loop = asyncio.get_running_loop()
            ready = self._client = loop.create_future()
            self._closing = asyncio.Event()
            task = self._task = asyncio.create_task(self._hold(ready, self._closing))
            deadline = loop.call_later(self._timeout, self._give_up, ready, task)
            ready.add_done_callback(lambda _: deadline.cancel())
        assert self._client is not None
        try:
            return await asyncio.shield(self._client)
        except Exception as exc:  # the deadline's, or what stopped the SDK (task groups, OS)
            self._task = None
            if isinstance(exc, StorageError):
                raise
            cause: BaseException = exc
            while isinstance(cause, BaseExceptionGroup) and len(cause.exceptions) == 1:
                cause = cause.exceptions[0]
            message = f"cannot connect: {str(cause) or type(cause).__name__}"
            raise StorageError(message, location=self._location) from exc

    def _give_up(self, ready: asyncio.Future[Client], task: asyncio.Task[None]) -> None:
        """Fail every caller waiting on the handshake; stop the attempt in the background."""
        if ready.done():
            return
        ready.set_exception(
            StorageError(
                f"cannot connect: no answer to the handshake (server/discover, initialize) "
                f"within {self._timeout:g} s (the backend's timeout)",
                location=self._location,
            )
        )
        self._abandon(task)
        task.cancel()

    def _abandon(self, task: asyncio.Task[None]) -> None:
        self._abandoned.add(task)
        task.add_done_callback(self._abandoned.discard)

    async def _hold(self, ready: asyncio.Future[Client], closing: asyncio.Event) -> None:
        """Open the connection, hand it out, and keep it open until ``closing`` is set."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await stack.enter_async_context(
                    Client(
                        await self._transport(stack, closing),
                        read_timeout_seconds=self._timeout,
                        extensions=[advertise(SKILLS_EXTENSION)],
                        cache=None,
                    )
                )
                ready.set_result(client)
                await closing.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)

    async def _transport(self, stack: contextlib.AsyncExitStack, closing: asyncio.Event) -> Any:
        if isinstance(self._server, StdioServerParameters):
            return bounded_stdio(
                self._server, max_line_bytes=self._max_answer_bytes, on_end=closing.set
            )
        if not isinstance(self._server, str):
            return self._server
        http = await asyncio.to_thread(
            _http_client, self._headers, self._timeout, self._max_answer_bytes
        )
        await stack.enter_async_context(http)
        return streamable_http_client(self._server, http_client=http)

    @contextlib.contextmanager
    def _translated(
        self, *, missing: str, not_found: type[StorageError], location: str | None = None
    ) -> Iterator[None]:
        where = location or self._location
        try:
            yield
        except MCPError as exc:
            if exc.code == types.PARSE_ERROR and _OVER_LIMIT in exc.message:
                message = f"refused: {_OVER_LIMIT}{exc.message.partition(_OVER_LIMIT)[2]}"
                raise LimitExceededError(message, location=where) from exc
            if exc.code == types.INVALID_PARAMS:
                raise not_found(missing or exc.message, location=where) from exc
            raise StorageError(f"the server failed: {exc.message}", location=where) from exc
        except SubscriptionLost as exc:
            raise StorageError(f"change events stopped: {exc}", location=where) from exc
        except ValidationError as exc:
            message = f"the server's answer is malformed: {exc}"
            raise StorageError(message, location=where) from exc
        except (OSError, TimeoutError) as exc:
            raise StorageError(f"the connection failed: {exc}", location=where) from exc


def _too_large(limit: int) -> str:
    return (
        f"{_OVER_LIMIT} {limit}-byte limit of one answer (twice the largest skill a host "
        "accepts); reading stopped"
    )


class _AnswerTooLarge(httpx2.StreamError):
    """An answer longer than the limit (the SDK reports a ``StreamError`` as a parse error)."""


class _Capped(httpx2.AsyncByteStream):
    """A response body that ends in :class:`_AnswerTooLarge` past ``limit`` bytes."""

    def __init__(self, stream: Any, limit: int) -> None:
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._stream:
            seen += len(chunk)
            if seen > self._limit:
                raise _AnswerTooLarge(_too_large(self._limit))
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


def _http_client(headers: Mapping[str, str], timeout: float, limit: int) -> httpx2.AsyncClient:
    """An HTTP client for the SDK: timeouts, and answers (not event streams) capped at ``limit``."""

    async def cap(response: httpx2.Response) -> None:
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            response.stream = _Capped(response.stream, limit)

    return httpx2.AsyncClient(
        headers=dict(headers),
        timeout=httpx2.Timeout(timeout, read=_STREAM_READ_SECONDS),
        event_hooks={"response": [cap]},
    )


_GRACE_SECONDS = 2.0  # to exit after stdin closes, and after SIGTERM (the SDK's)
_FLUSH_SECONDS = 0.5  # for accepted messages to reach the server's stdin

_PIPE_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)

Received = SessionMessage | Exception
Streams = tuple[MemoryObjectReceiveStream[Received], MemoryObjectSendStream[SessionMessage]]


@contextlib.asynccontextmanager
async def bounded_stdio(
    server: StdioServerParameters, *, max_line_bytes: int, on_end: Callable[[], None]
) -> AsyncIterator[Streams]:
    """The SDK's ``stdio_client``, but a line past ``max_line_bytes`` ends the connection.

    Pending requests then get a parse error saying so; ``on_end`` runs as stdout ends.
    """
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=sys.stderr,
        cwd=server.cwd,
        start_new_session=True,
    )
    pipes = _Pipes(process, server, max_line_bytes)
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

    def __init__(self, process: Process, server: StdioServerParameters, limit: int) -> None:
        self.process = process
        self.server = server
        self.limit = limit
        self.to_session, self.from_server = anyio.create_memory_object_stream[Received](0)
        self.to_server, self.from_session = anyio.create_memory_object_stream[SessionMessage](0)
        self.pending: set[types.RequestId] = set()
        self.written = anyio.Event()

    async def read(self, on_end: Callable[[], None]) -> None:
        """Hand stdout to the session; refuse the pending requests past the limit."""
        assert self.process.stdout is not None
        refused = False
        try:
            async with self.to_session:
                refused = await self._deliver_lines()
                if refused:
                    error = types.ErrorData(code=types.PARSE_ERROR, message=_too_large(self.limit))
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
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        return exc
    if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
        pending.discard(message.id)
    return SessionMessage(message)


async def _stop(process: Process) -> None:
    """Close the pipes; then SIGTERM, then SIGKILL, the process group after each grace period."""
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
    with anyio.move_on_after(_GRACE_SECONDS):
        await process.wait()
    return process.returncode is not None
