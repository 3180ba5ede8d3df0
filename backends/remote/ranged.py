"""Large archives read in place: ranged requests behind a file object that zipfile reads.

A bundle over ``Limits.bundle_download_bytes`` is never downloaded whole. Its tail and central
directory are fetched once and kept; members are read by fetching their byte spans first
(:meth:`RangedArchive.spans`): spans close together are merged into one request of at most
``WINDOW_BYTES``, up to ``concurrency`` requests run at once, and a batch holds at most
``concurrency`` windows before its members are inflated and the windows dropped. zipfile then
reads the windows from a worker thread without any I/O. A read outside every window (a local
header longer than the central directory said) is fetched from that worker thread through
the caller's event loop, at least ``FALLBACK_BYTES`` at a time.

fsspec's own file objects fetch synchronously on the reading thread, one block at a time, and
bypass skillfs's retry and error translation: hence this small file of our own.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from typing import Any

from backends.limits import KIB, MIB

Fetch = Callable[[int, int], Coroutine[Any, Any, bytes]]
"""Reads bytes ``[start, end)`` of the archive."""

Span = tuple[int, int]
"""``[start, end)`` byte offsets."""

WINDOW_BYTES = 4 * MIB
"""Largest merged ranged request."""
GAP_BYTES = 256 * KIB
"""Spans at most this far apart are fetched in one request."""
FALLBACK_BYTES = 256 * KIB
"""Least a read outside every window fetches."""
_FALLBACKS_KEPT = 4


class RangedArchive(io.RawIOBase):
    """A read-only, seekable view of a remote archive of ``size`` bytes.

    Args:
        size: The archive's size.
        fetch: Reads a byte range (retried and translated by the caller's filesystem layer).
        known: The bytes already fetched from ``known_start`` to the end (tail and directory).
        known_start: Where ``known`` starts.
        concurrency: Most requests in flight at once.
        pinned: Other byte ranges already at hand, as ``(start, bytes)``, kept for every read.
    """

    def __init__(
        self,
        size: int,
        fetch: Fetch,
        *,
        known: bytes,
        known_start: int,
        concurrency: int,
        pinned: Sequence[tuple[int, bytes]] = (),
    ) -> None:
        super().__init__()
        self._size = size
        self._fetch = fetch
        self._known = known
        self._known_start = known_start
        self._concurrency = concurrency
        self._position = 0
        self._lock = threading.Lock()
        self._windows: list[tuple[int, bytes]] = list(pinned)
        self._fallbacks: deque[tuple[int, bytes]] = deque(maxlen=_FALLBACKS_KEPT)
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- what zipfile calls, from worker threads -------------------------------------------

    def readable(self) -> bool:
        """Always readable."""
        return True

    def seekable(self) -> bool:
        """Always seekable."""
        return True

    def tell(self) -> int:
        """The current position."""
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Move to ``offset`` from the start, the current position or the end."""
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` from the current position (blocking: worker threads only)."""
        view = memoryview(buffer).cast("B")
        end = min(self._size, self._position + len(view))
        if end <= self._position:
            return 0
        data = self._cached(self._position, end)
        if data is None:
            data = self._fetch_blocking(self._position, end)
        view[: len(data)] = data
        self._position += len(data)
        return len(data)

    # -- prefetching, on the event loop -----------------------------------------------------

    @contextlib.asynccontextmanager
    async def spans(self, spans: Sequence[Span]) -> AsyncIterator[None]:
        """Fetch ``spans`` (merged, concurrently) and keep them for reads until exit."""
        self._loop = asyncio.get_running_loop()
        gate = asyncio.Semaphore(self._concurrency)

        async def fetch(window: Span) -> tuple[int, bytes]:
            async with gate:
                return window[0], await self._fetch(*window)

        wanted = [(start, min(end, self._known_start)) for start, end in spans]
        windows = merge_spans([span for span in wanted if span[0] < span[1]])
        fetched = list(await asyncio.gather(*(fetch(window) for window in windows)))
        with self._lock:
            self._windows += fetched
        try:
            yield
        finally:
            with self._lock:
                kept = {id(item) for item in fetched}
                self._windows = [item for item in self._windows if id(item) not in kept]

    def batches(self, spans: Sequence[Span]) -> Iterator[list[int]]:
        """Indexes of ``spans``, in archive order, in batches of at most ``concurrency`` windows."""
        batch: list[int] = []
        windows: list[Span] = []
        for index in sorted(range(len(spans)), key=lambda index: spans[index]):
            start, end = spans[index]
            if windows and _joins(windows[-1], start, end):
                windows[-1] = (windows[-1][0], max(windows[-1][1], end))
            elif len(windows) < self._concurrency:
                windows.append((start, end))
            else:
                yield batch
                batch, windows = [], [(start, end)]
            batch.append(index)
        if batch:
            yield batch

    # -- internals --------------------------------------------------------------------------

    def _cached(self, start: int, end: int) -> bytes | None:
        if start >= self._known_start:
            offset = start - self._known_start
            return self._known[offset : offset + end - start]
        with self._lock:
            windows = [*self._windows, *self._fallbacks]
        for window_start, data in windows:
            if window_start <= start and end <= window_start + len(data):
                return data[start - window_start : end - window_start]
        return None

    def _fetch_blocking(self, start: int, end: int) -> bytes:
        loop = self._loop
        if loop is None or _running_loop() is loop:
            raise RuntimeError("a ranged archive is read in worker threads, inside spans()")
        stop = min(self._size, max(end, start + FALLBACK_BYTES))
        data = asyncio.run_coroutine_threadsafe(self._fetch(start, stop), loop).result()
        with self._lock:
            self._fallbacks.append((start, data))
        return data[: end - start]


def merge_spans(spans: Sequence[Span]) -> list[Span]:
    """``spans`` sorted and merged where at most ``GAP_BYTES`` apart, up to ``WINDOW_BYTES``.

    A span larger than ``WINDOW_BYTES`` stays whole.
    """
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and _joins(merged[-1], start, end):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _joins(window: Span, start: int, end: int) -> bool:
    """True when the span ``[start, end)`` (starting at or after ``window``) joins it."""
    first, last = window
    return end <= last or (start - last <= GAP_BYTES and end - first <= WINDOW_BYTES)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
