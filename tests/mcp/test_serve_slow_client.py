"""`skillfs serve --http` with a client that opens its notification stream and never reads it:
the skills keep changing, refreshes complete, and every other client gets current skills."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from backends._mcp.backend import McpSkillsBackend
from tests.mcp.harness import ServedFolder

pytestmark = pytest.mark.asyncio

GUARD = 60  # a guard against hanging, not a measurement
STORM = 60_000  # list-changed notifications: twice what fills a stream nobody reads
PROTOCOL = "2025-06-18"  # a handshake-era client: notifications go to its GET stream
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "never-reads", "version": "1"},
    },
}


def skill(name: str) -> dict[str, bytes]:
    return {f"{name}/SKILL.md": f"---\nname: {name}\ndescription: d\n---\nbody\n".encode()}


async def handshake(url: str) -> str:
    """Initialize a handshake-era session; its id."""
    async with httpx.AsyncClient() as client:
        initialized = await client.post(url, json=INITIALIZE, headers=HEADERS)
        session = initialized.headers["mcp-session-id"]
        headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await client.post(url, json=note, headers=headers)).status_code == 202
    return session


@contextlib.asynccontextmanager
async def stream_never_read(url: str, session: str) -> AsyncIterator[None]:
    """Open the session's notification stream (GET, SSE) on a raw socket and never read it."""
    parts = urlsplit(url)
    assert parts.hostname is not None
    assert parts.port is not None
    loop = asyncio.get_running_loop()
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await loop.sock_connect(sock, (parts.hostname, parts.port))
        request = (
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
            f"mcp-session-id: {session}\r\nmcp-protocol-version: {PROTOCOL}\r\n\r\n"
        )
        await loop.sock_sendall(sock, request.encode())
        yield


async def test_a_client_that_never_reads_holds_up_no_one(tmp_path: Path) -> None:
    served = ServedFolder(tmp_path / "skills")
    url = await served.start(skill("pdf"))
    backend = McpSkillsBackend(url, label="other")
    try:
        async with stream_never_read(url, await handshake(url)), asyncio.timeout(GUARD):
            for index in range(STORM):
                if index % 10_000 == 0:  # a real change, refreshed and published
                    await served.write(*skill(f"skill-{index}").popitem())
                else:
                    await served.server.changes.publish()
            await served.write(*skill("notes").popitem())
            listed = [ref.name for ref in await backend.list()]
        assert listed == ["notes", "pdf", *sorted(f"skill-{i}" for i in range(0, STORM, 10_000))]
    finally:
        await backend.aclose()
        await served.close()
