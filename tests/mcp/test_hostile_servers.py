"""McpSkillsBackend facing a hostile MCP server process over stdio: deadlines and sizes hold."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from backends._errors import LimitExceededError, StorageError
from backends._limits import MIB
from backends._mcp.backend import McpSkillsBackend
from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import RESOURCE_TOO_LARGE
from skills_core.tools import SkillTools
from tests.mcp.harness import ServedFolder
from tests.mcp.hostile import HostileServer

pytestmark = pytest.mark.asyncio

GUARD = 60  # against hanging, not a measurement


def slow_pager(folder: Path, pages: int, delay: float) -> HostileServer:
    server = HostileServer(folder, "slow-pages", str(delay))
    for index in range(pages):
        server.add_skill(f"skill-{index}")
    return server


async def test_a_listing_ends_within_the_timeout_whatever_the_pages(tmp_path: Path) -> None:
    # Each page answers well inside the timeout; six of them do not fit in it.
    server = await asyncio.to_thread(slow_pager, tmp_path, 6, 1.5)
    backend = McpSkillsBackend(server.params(), label="slow", timeout=5)
    try:
        async with asyncio.timeout(GUARD):
            with pytest.raises(StorageError) as raised:
                await backend.list()
    finally:
        await backend.aclose()
    assert str(raised.value).startswith("mcp[slow]: timed out: skills/list did not complete")
    assert "within 5 s, every page included (the backend's timeout;" in str(raised.value)
    asked = await asyncio.to_thread(server.requests, "skills/list")
    assert 1 <= asked < 6


async def test_a_server_that_never_answers_the_handshake_fails_within_the_timeout(
    tmp_path: Path,
) -> None:
    server = await asyncio.to_thread(HostileServer, tmp_path, "silent")
    backend = McpSkillsBackend(server.params(), label="silent", timeout=2)
    try:
        async with asyncio.timeout(GUARD):
            with pytest.raises(StorageError) as raised:
                await backend.list()
    finally:
        async with asyncio.timeout(GUARD):
            await backend.aclose()  # stops the abandoned server process
    assert str(raised.value) == (
        "mcp[silent]: cannot connect: no answer to the handshake (server/discover, initialize) "
        "within 2 s (the backend's timeout)"
    )  # before: the SDK's 10 s probe, then "unhandled errors in a TaskGroup"


async def test_a_server_that_exits_says_why_not_task_group(tmp_path: Path) -> None:
    backend = McpSkillsBackend([sys.executable, "-c", "raise SystemExit(3)"], label="gone")
    try:
        with pytest.raises(StorageError) as raised:
            await backend.list()
    finally:
        await backend.aclose()
    assert str(raised.value) == "mcp[gone]: cannot connect: Connection closed"


async def test_an_answer_far_larger_than_listed_is_refused_unread(tmp_path: Path) -> None:
    served = ServedFolder(tmp_path / "skills")
    skill_md = b"---\nname: big\ndescription: d\n---\nx\n"
    await served.start({"big/SKILL.md": skill_md, "big/ref.md": b"r" * 100, "big/notes.md": b"n"})
    sent: list[int] = []

    async def inflate(ctx, call_next):  # type: ignore[no-untyped-def]
        result = await call_next(ctx)
        if ctx.method == "resources/read" and ctx.params["uri"] == "skill://big/ref.md":
            result["contents"][0]["text"] = "y" * (40 * MIB)  # listed at 100 bytes
            sent.append(40 * MIB)
        return result

    served.server.lowlevel.middleware.append(inflate)
    backend = McpSkillsBackend(served.url, label="big")
    catalog = SkillCatalog(backend)
    try:
        await catalog.refresh()
        with pytest.raises(LimitExceededError) as raised:
            await catalog.read_resource("big", "ref.md")
        result = await SkillTools(catalog).load_skill_resource("big", "ref.md")
        assert await catalog.read_resource("big", "notes.md") == b"n"  # the connection serves
    finally:
        await backend.aclose()
        await served.close()
    assert sent == [40 * MIB, 40 * MIB]
    assert str(raised.value) == (
        "mcp[big]:skill://big/ref.md: refused: an answer went past the 33554432-byte limit of "
        "one answer (twice the largest skill a host accepts); reading stopped"
    )
    assert result["error_code"] == RESOURCE_TOO_LARGE
    assert result["error"] == raised.value.message


async def test_a_line_far_longer_than_listed_is_refused_over_stdio(tmp_path: Path) -> None:
    server = await asyncio.to_thread(HostileServer, tmp_path, "inflate", "skill://big/ref.md")
    await asyncio.to_thread(server.add_skill, "big")
    await asyncio.to_thread((server.skills / "big" / "ref.md").write_bytes, b"r" * 100)
    await asyncio.to_thread((server.skills / "big" / "notes.md").write_bytes, b"n")
    backend = McpSkillsBackend(server.params(), label="big")
    catalog = SkillCatalog(backend)
    try:
        async with asyncio.timeout(GUARD):
            await catalog.refresh()
            with pytest.raises(LimitExceededError) as raised:
                await catalog.read_resource("big", "ref.md")
            result = await SkillTools(catalog).load_skill_resource("big", "ref.md")
            # The connection ended at the over-long line: this read starts the server again.
            assert await catalog.read_resource("big", "notes.md") == b"n"
    finally:
        async with asyncio.timeout(GUARD):
            await backend.aclose()
    assert str(raised.value) == (
        "mcp[big]:skill://big/ref.md: refused: an answer went past the 33554432-byte limit of "
        "one answer (twice the largest skill a host accepts); reading stopped"
    )
    assert result["error_code"] == RESOURCE_TOO_LARGE
    assert result["error"] == raised.value.message
    # Reading stopped: both 40 MiB writes broke off, well short of the whole line.
    cut = await asyncio.to_thread(server.notes, "cut off after ")
    assert len(cut) == 2
    assert await asyncio.to_thread(server.notes, "wrote ") == []
    assert all(int(line.split()[3]) < 34 * MIB for line in cut)
    # One server per connection, and none outlives aclose.
    pids = [int(line.split()[1]) for line in await asyncio.to_thread(server.notes, "pid ")]
    assert len(pids) == 3
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


async def test_a_stdio_server_that_exits_is_started_again_by_the_next_call(
    tmp_path: Path,
) -> None:
    server = await asyncio.to_thread(HostileServer, tmp_path, "plain")
    await asyncio.to_thread(server.add_skill, "one")
    backend = McpSkillsBackend(server.params(), label="plain")
    try:
        async with asyncio.timeout(GUARD):
            assert [ref.name for ref in await backend.list()] == ["one"]
            [first] = await asyncio.to_thread(server.notes, "pid ")
            os.kill(int(first.split()[1]), signal.SIGKILL)
            names: list[str] = []
            while not names:  # a call before the old connection saw the end fails
                try:
                    names = [ref.name for ref in await backend.list()]
                except StorageError:
                    await asyncio.sleep(0.05)
    finally:
        await backend.aclose()
    assert names == ["one"]
    assert len(await asyncio.to_thread(server.notes, "pid ")) == 2
