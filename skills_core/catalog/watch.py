"""Keep a catalog current: the backend's change events where it has them, polling elsewhere.

Change events are read by a task of their own, so a burst of them that arrives while the
catalog refreshes becomes one refresh, not one each. Events that stop (the source ended them,
or they failed) are reported, not taken for the end of the watch: the catalog is refreshed, and
after ``interval`` seconds the events are asked for again, with a refresh each time, until they
come back.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

from backends.capabilities import change_events
from backends.errors import StorageError
from skills_core import codes
from skills_core.format.problems import SkillProblem

if TYPE_CHECKING:
    from backends.base import Backend
    from skills_core.catalog.catalog import SkillCatalog
    from skills_core.catalog.snapshot import ReloadReport

logger = logging.getLogger("skillfs")


async def watch_catalog(catalog: SkillCatalog, *, interval: float) -> AsyncIterator[ReloadReport]:
    """Yield the first refresh's report, then one per refresh that changed something.

    A refresh "changed something" when skills were added, changed or removed, when the listing
    failed, or when the set of errors differs from the last report's. A refresh after change
    events stopped is reported with a ``WATCH_INTERRUPTED`` failure, unless its listing failed.
    """
    report = await catalog.refresh()
    yield report
    last_errors = report.errors
    async with contextlib.aclosing(refresh_triggers(catalog.backend, interval)) as triggers:
        async for stopped in triggers:
            report = await catalog.refresh()
            if stopped is not None and report.failure is None:
                where = stopped.location or catalog.backend.location
                message = f"{stopped.message}; refreshed, and asking for them again"
                problem = SkillProblem(None, where, codes.WATCH_INTERRUPTED, message)
                report = dataclasses.replace(report, failure=problem, cause=stopped)
            if report.has_changes or not report.ok or report.errors != last_errors:
                last_errors = report.errors
                yield report


async def refresh_triggers(
    backend: Backend, interval: float
) -> AsyncGenerator[StorageError | None, None]:
    """When to refresh: on change events, or every ``interval`` seconds.

    Yields ``None`` for a refresh, or why the change events stopped. The events' first signal
    (the watch is running) triggers a refresh too, catching what changed between the first
    refresh and the start of the watch.
    """
    watched = False
    while True:
        pending = asyncio.Event()
        pump = asyncio.create_task(_pump(backend, pending))
        try:
            while await _signalled(pending, pump):
                watched = True
                yield None
        finally:
            pump.cancel()
            await asyncio.wait({pump})
        stopped = _why_stopped(pump, backend)
        if stopped is None and not watched:  # the backend has no events: poll
            while True:
                await asyncio.sleep(interval)
                yield None
        watched = True
        yield stopped or StorageError("change events are not offered", location=backend.location)
        await asyncio.sleep(interval)


async def _pump(backend: Backend, pending: asyncio.Event) -> bool:
    """Set ``pending`` at each of the backend's change signals; False when it has none.

    The events are opened, read and closed in this one task (SDK clients need that).
    """
    events = await change_events(backend)
    if events is None:
        return False
    try:
        async for _ in events:
            pending.set()
    finally:
        close = getattr(events, "aclose", None)  # async generators need closing
        if close is not None:
            await close()
    return True


async def _signalled(pending: asyncio.Event, pump: asyncio.Task[bool]) -> bool:
    """Wait for a signal (True, all signals so far merged into it) or the pump's end (False)."""
    if not pending.is_set():
        waiter = asyncio.create_task(pending.wait())
        try:
            await asyncio.wait({waiter, pump}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
    if pending.is_set():
        pending.clear()
        return True
    return False


def _why_stopped(pump: asyncio.Task[bool], backend: Backend) -> StorageError | None:
    """Why the events ended: their error, or that they ended; None when there were none."""
    error = pump.exception()
    if isinstance(error, StorageError):
        stopped = error
    elif error is not None:  # a foreign error: worth its traceback, never the watch's end
        logger.error("%s: change events failed", backend.location, exc_info=error)
        stopped = StorageError(f"change events failed: {error!r}", location=backend.location)
    elif pump.result():
        stopped = StorageError("the source ended its change events", location=backend.location)
    else:
        return None
    logger.warning(
        "%s: %s; refreshing, and asking for them again", backend.location, stopped.message
    )
    return stopped
