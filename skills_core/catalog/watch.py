"""Keep a catalog current: the backend's change events where it has them, polling elsewhere."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING

from backends.capabilities import change_events

if TYPE_CHECKING:
    from backends.base import Backend
    from skills_core.catalog.catalog import SkillCatalog
    from skills_core.catalog.report import ReloadReport


async def watch_catalog(catalog: SkillCatalog, *, interval: float) -> AsyncIterator[ReloadReport]:
    """Yield the first refresh's report, then one per refresh that changed something.

    A refresh "changed something" when skills were added, changed or removed, when the listing
    failed, or when the set of errors differs from the last report's.
    """
    report = await catalog.refresh()
    yield report
    last_errors = report.errors
    async with contextlib.aclosing(refresh_triggers(catalog.backend, interval)) as triggers:
        async for _ in triggers:
            report = await catalog.refresh()
            if report.has_changes or not report.ok or report.errors != last_errors:
                last_errors = report.errors
                yield report


async def refresh_triggers(backend: Backend, interval: float) -> AsyncGenerator[None, None]:
    """When to refresh: on each change event, or every ``interval`` seconds.

    The events' first signal (the watch is running) triggers a refresh too, catching what
    changed between the first refresh and the start of the watch.
    """
    events = await change_events(backend)
    if events is not None:
        try:
            async for _ in events:
                yield None
        finally:
            close = getattr(events, "aclose", None)  # async generators need closing
            if close is not None:
                await close()
        return
    while True:
        await asyncio.sleep(interval)
        yield None
