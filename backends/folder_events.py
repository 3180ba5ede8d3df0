"""Change signals for local folders, from filesystem events (``agent-skillfs[watch]``)."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import AsyncIterator, Sequence

_DEBOUNCE_MS = 200
_WAKE_MS = 1000


def can_watch() -> bool:
    """True when the optional ``watchfiles`` package is installed."""
    return importlib.util.find_spec("watchfiles") is not None


async def watchable(folders: Sequence[str]) -> bool:
    """True when events can be had for every folder: watchfiles is there and each exists."""
    return can_watch() and await asyncio.to_thread(_all_folders, folders)


async def folder_events(folders: Sequence[str]) -> AsyncIterator[None]:
    """Yield once when the watch is running, then once per burst of changes below ``folders``."""
    from watchfiles import awatch

    stop = asyncio.Event()
    started = False
    try:
        async for changes in awatch(
            *folders,
            debounce=_DEBOUNCE_MS,
            watch_filter=None,
            stop_event=stop,
            rust_timeout=_WAKE_MS,
            yield_on_timeout=True,
        ):
            # The first wake-up, change or not, proves the watcher runs.
            if changes or not started:
                started = True
                yield None
    finally:
        stop.set()


async def merged(streams: Sequence[AsyncIterator[None]]) -> AsyncIterator[None]:
    """One signal stream from several: a signal whenever any of them signals.

    The merged stream starts (its first signal) once every stream has signalled once.
    """
    queue: asyncio.Queue[int | Exception] = asyncio.Queue()

    async def pump(index: int, stream: AsyncIterator[None]) -> None:
        try:
            async for _ in stream:
                queue.put_nowait(index)
        except Exception as exc:  # handed to the reader, who raises it
            queue.put_nowait(exc)

    tasks = [asyncio.create_task(pump(index, stream)) for index, stream in enumerate(streams)]
    try:
        started: set[int] = set()
        while True:
            signal = await queue.get()
            if isinstance(signal, Exception):
                raise signal
            if len(started) == len(streams):
                yield None
                continue
            started.add(signal)
            if len(started) == len(streams):
                yield None
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _all_folders(folders: Sequence[str]) -> bool:
    return all(os.path.isdir(folder) for folder in folders)
