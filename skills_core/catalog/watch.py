"""Keep a catalog current: filesystem events for local folders, polling for everything else."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from backends.composite import CompositeBackend
from backends.local import LocalBackend

try:
    from watchfiles import awatch
except ImportError:  # without agent-skillfs[watch], local folders are polled too
    awatch = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from backends.base import Backend
    from skills_core.catalog.catalog import SkillCatalog
    from skills_core.catalog.report import ReloadReport

_DEBOUNCE_MS = 200
_WAKE_MS = 1000


async def watch_catalog(catalog: SkillCatalog, *, interval: float) -> AsyncIterator[ReloadReport]:
    """Yield the first refresh's report, then one per refresh that changed something.

    A refresh "changed something" when skills were added, changed or removed, when the listing
    failed, or when the set of errors differs from the last report's.
    """
    report = await catalog.refresh()
    yield report
    last_errors = report.errors
    async with contextlib.aclosing(_triggers(catalog.backend, interval)) as triggers:
        async for _ in triggers:
            report = await catalog.refresh()
            if report.has_changes or not report.ok or report.errors != last_errors:
                last_errors = report.errors
                yield report


async def _triggers(backend: Backend, interval: float) -> AsyncGenerator[None, None]:
    roots = local_roots(backend)
    if roots and awatch is not None and await asyncio.to_thread(_all_folders, roots):
        stop = asyncio.Event()
        started = False
        try:
            async for changes in awatch(
                *roots,
                debounce=_DEBOUNCE_MS,
                watch_filter=None,
                stop_event=stop,
                rust_timeout=_WAKE_MS,
                yield_on_timeout=True,
            ):
                # The first wake-up, change or not, proves the watcher runs: refresh once then
                # to catch what changed between the first refresh and the watcher's start.
                if changes or not started:
                    started = True
                    yield None
        finally:
            stop.set()
        return
    while True:
        await asyncio.sleep(interval)
        yield None


def local_roots(backend: Backend) -> Sequence[Path] | None:
    """The folders to watch when every part of ``backend`` is local, else ``None``."""
    if isinstance(backend, LocalBackend):
        return [backend.root]
    if isinstance(backend, CompositeBackend):
        roots: list[Path] = []
        for member in backend.backends:
            member_roots = local_roots(member)
            if member_roots is None:
                return None
            roots.extend(member_roots)
        return roots
    return None


def _all_folders(paths: Sequence[Path]) -> bool:
    return all(path.is_dir() for path in paths)
