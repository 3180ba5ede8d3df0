"""`catalog.watch()` on an MCP source: a storm of change events costs one refresh, and a listen
stream the server ends is reported and listened to again, never the end of the watch."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

from backends._mcp.backend import McpSkillsBackend
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.snapshot import ReloadReport
from tests.mcp.harness import ServedFolder

pytestmark = pytest.mark.asyncio

GUARD = 60  # a guard against hanging, not a measurement
STORM = 20_000


def skill(name: str) -> tuple[str, bytes]:
    return f"{name}/SKILL.md", f"---\nname: {name}\ndescription: d\n---\nbody\n".encode()


class Gate:
    """Server middleware holding every ``skills/list`` while closed."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.open.set()

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == "skills/list":
            await self.open.wait()
        return await call_next(ctx)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[ServedFolder]:
    harness = ServedFolder(tmp_path / "skills")
    await harness.start(dict([skill("pdf")]))
    yield harness
    await harness.close()


@pytest.fixture
async def reports(served: ServedFolder) -> AsyncIterator[AsyncIterator[ReloadReport]]:
    backend = McpSkillsBackend(served.url, label="team")
    try:
        async with contextlib.aclosing(SkillCatalog(backend).watch(interval=0.1)) as watch:
            first = await anext(watch)
            assert first.added == ("pdf",)
            yield watch
    finally:
        await backend.aclose()


class Seen:
    """Server middleware counting requests by method, which a test can wait on."""

    def __init__(self) -> None:
        self.methods: Counter[str] = Counter()
        self._counted = asyncio.Condition()

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.request_id is not None:
            async with self._counted:
                self.methods[ctx.method] += 1
                self._counted.notify_all()
        return await call_next(ctx)

    async def reached(self, method: str, count: int) -> None:
        async with self._counted:
            await self._counted.wait_for(lambda: self.methods[method] >= count)


async def test_a_storm_of_change_events_costs_one_refresh(
    served: ServedFolder, reports: AsyncIterator[ReloadReport]
) -> None:
    log, gate = Seen(), Gate()
    served.server.lowlevel.middleware += [log, gate]
    async with asyncio.timeout(GUARD):
        watching = asyncio.create_task(anext(reports))
        await log.reached("skills/list", 1)  # the watch's first signal's
        gate.open.clear()
        await served.server.changes.publish()
        await log.reached("skills/list", 2)  # a refresh, held at its listing
        for _ in range(STORM):
            await served.server.changes.publish()
        await served.write(*skill("notes"))
        gate.open.set()
        report = await watching
        assert report.added == ("notes",)
        assert report.ok
        await served.write(*skill("more"))
        assert (await anext(reports)).added == ("more",)
    assert log.methods["skills/list"] <= 4  # held, the storm's one, and more's (or merged)
    assert log.methods["subscriptions/listen"] == 1


async def test_a_listen_stream_the_server_ends_is_reported_and_listened_to_again(
    served: ServedFolder, reports: AsyncIterator[ReloadReport]
) -> None:
    log = Seen()
    served.server.lowlevel.middleware.append(log)
    async with asyncio.timeout(GUARD):
        watching = asyncio.create_task(anext(reports))
        await log.reached("skills/list", 1)  # listening
        served.server._listen.close()  # as the SDK does at shutdown
        interrupted = await watching
        assert interrupted.failure is not None
        assert interrupted.failure.code == codes.WATCH_INTERRUPTED
        assert "ended its change events" in interrupted.failure.message
        watching = asyncio.create_task(anext(reports))
        await log.reached("subscriptions/listen", 2)
        await served.write(*skill("notes"))
        report = await watching
        assert report.added == ("notes",)
        assert report.ok
