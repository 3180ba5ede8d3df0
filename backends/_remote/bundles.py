"""Zip bundles on any storage: a HEAD per refresh, the end record first, then the archive.

Up to ``Limits.bundle_download_bytes`` an archive is served from memory, a larger one with
ranged requests (:class:`RangedArchive`). The listing is exported (:class:`SavedBundle`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
from typing import IO, Any, NamedTuple

from backends._errors import LimitExceededError, StorageError
from backends._limits import KIB, MIB, Limits, check_size
from backends._remote.archives import (
    TAIL_BYTES,
    Span,
    ZipBundle,
    read_end_record,
    screened_end_record,
)
from backends._remote.failures import RangesIgnoredError
from backends._remote.filesystem import RemoteFS
from backends._remote.layout import StoredFile, fingerprint

logger = logging.getLogger("skillfs")

Fetch = Callable[[int, int], Coroutine[Any, Any, bytes]]  # bytes [start, end) of the archive

WINDOW_BYTES = 4 * MIB  # largest merged ranged request
GAP_BYTES = 256 * KIB  # spans at most this far apart are fetched in one request
FALLBACK_BYTES = 256 * KIB  # least a read outside every window fetches
_FALLBACKS_KEPT = 4


class RangedArchive(io.RawIOBase):
    """A read-only, seekable view of a remote archive of ``size`` bytes, for zipfile.

    :meth:`spans` fetches members' spans first; zipfile then reads them in a worker thread (a
    read outside them is fetched through the caller's loop). ``known``: the bytes from
    ``known_start`` on; ``pinned``: other ``(start, bytes)`` at hand.
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

    def readable(self) -> bool:
        """Always readable."""
        return True

    def seekable(self) -> bool:
        """Always seekable."""
        return True

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
    """``spans`` sorted and merged where at most ``GAP_BYTES`` apart, up to ``WINDOW_BYTES``."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and _joins(merged[-1], start, end):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _joins(window: Span, start: int, end: int) -> bool:
    first, last = window
    return end <= last or (start - last <= GAP_BYTES and end - first <= WINDOW_BYTES)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


_TAG = b"skillfs-bundle/1\n"


class SavedBundle(NamedTuple):
    """An archive's listing as saved: its bytes from the directory on, and its manifest's."""

    size: int
    directory_start: int
    directory: bytes
    manifest_start: int
    manifest: bytes
    token: str = ""

    def pinned(self) -> tuple[tuple[int, bytes], ...]:
        """The saved bytes a ranged archive holds besides the directory."""
        return ((self.manifest_start, self.manifest),) if self.manifest else ()

    def encode(self) -> bytes:
        """The exported state."""
        header = [self.token, self.size, self.directory_start, self.manifest_start]
        return b"%s%s\n%s%s" % (
            _TAG,
            json.dumps([*header, len(self.directory)]).encode(),
            self.directory,
            self.manifest,
        )

    @classmethod
    def decode(cls, state: bytes) -> SavedBundle | None:
        """The saved listing in an exported state; ``None`` when it is not one (or damaged)."""
        if not state.startswith(_TAG):
            return None
        line, _, rest = state[len(_TAG) :].partition(b"\n")
        try:
            token, size, directory_start, manifest_start, length = json.loads(line)
        except ValueError:
            return None
        fields = (size, directory_start, manifest_start, length)
        if not (isinstance(token, str) and all(type(value) is int for value in fields)):
            return None
        if not 0 <= length <= len(rest):
            return None
        return cls(size, directory_start, rest[:length], manifest_start, rest[length:], token)


def saved_bundle(file: IO[bytes] | io.RawIOBase, size: int, bundle: ZipBundle) -> SavedBundle:
    """What to save of an indexed archive read through ``file`` (blocking; nothing fetched)."""
    tail_start = max(0, size - TAIL_BYTES)
    file.seek(tail_start)
    end = read_end_record(file.read() or b"", tail_start, location="")
    file.seek(end.directory_start)
    directory = file.read() or b""
    manifest_start, manifest = 0, b""
    for start, stop in bundle.manifest_spans():
        file.seek(start)
        manifest_start, manifest = start, file.read(stop - start) or b""
    return SavedBundle(size, end.directory_start, directory, manifest_start, manifest)


class ZipView:
    """Files inflated from one screened archive (ranged when not downloaded whole)."""

    def __init__(
        self, bundle: ZipBundle, saved: SavedBundle, ranged: RangedArchive | None = None
    ) -> None:
        self._bundle = bundle
        self._ranged = ranged
        self.saved = saved
        self.layout = bundle.layout

    async def fetch(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        """Inflate several members; a range that cannot be fetched fails its members only."""
        ranged = self._ranged
        if ranged is None:
            return await asyncio.to_thread(self._bundle.read_many, files)
        results: list[bytes | StorageError] = [b""] * len(files)
        spans = [self._bundle.span(stored.key) for stored in files]
        for batch in ranged.batches(spans):
            chosen = [files[index] for index in batch]
            try:
                async with ranged.spans([spans[index] for index in batch]):
                    read = await asyncio.to_thread(self._bundle.read_many, chosen)
            except StorageError as exc:
                read = [exc] * len(batch)
            for index, result in zip(batch, read, strict=True):
                results[index] = result
        return results

    async def read(self, stored: StoredFile) -> bytes:
        """Inflate one member."""
        (result,) = await self.fetch([stored])
        if isinstance(result, StorageError):
            raise result
        return result


class DeferredView:
    """A bundle listed from a saved listing, whose archive is downloaded on the first read."""

    def __init__(
        self,
        listed: ZipBundle,
        saved: SavedBundle,
        download: Callable[[], Awaitable[ZipView]],
    ) -> None:
        self._listed = listed
        self._download = download
        self._view: ZipView | None = None
        self._downloading = asyncio.Lock()
        self.saved = saved
        self.layout = listed.layout

    async def fetch(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        """Inflate several members from the downloaded archive."""
        try:
            view = await self._downloaded()
        except StorageError as exc:
            return [exc] * len(files)
        return await view.fetch(files)

    async def read(self, stored: StoredFile) -> bytes:
        """Inflate one member from the downloaded archive."""
        return await (await self._downloaded()).read(stored)

    async def _downloaded(self) -> ZipView:
        async with self._downloading:
            if self._view is None:
                self._view = await self._download()
            return self._view


class BundleSource:
    """A zip bundle: one HEAD per refresh, and the archive again only when it changed."""

    def __init__(
        self,
        fs: RemoteFS,
        *,
        inner_root: str | None,
        limits: Limits,
        location: str,
        concurrency: int,
    ) -> None:
        self._fs = fs
        self._inner_root = inner_root
        self._limits = limits
        self._location = location
        self._concurrency = concurrency
        self._current: tuple[str, ZipView | DeferredView] | None = None
        self._imported: SavedBundle | None = None

    def export_state(self) -> bytes | None:
        """The archive's fingerprint and listing, once read."""
        current = self._current
        return None if current is None else current[1].saved._replace(token=current[0]).encode()

    def import_state(self, state: bytes) -> None:
        """Take the listing another process exported, used if the archive has not changed."""
        if self._current is None:
            self._imported = SavedBundle.decode(state)

    async def snapshot(self) -> ZipView | DeferredView:
        """Check the archive's fingerprint; read and screen it again only if it changed."""
        details = await self._fs.info(self._fs.path, location=self._location)
        token = fingerprint(details)
        if self._current is not None and self._current[0] == token:
            return self._current[1]
        size = details.get("size")
        imported, self._imported = self._imported, None
        view: ZipView | DeferredView | None = None
        if imported is not None and (imported.token, imported.size) == (token, size):
            view = await self._resumed(imported)
        if view is None:
            view = await (self._open(size) if isinstance(size, int) else self._download())
        self._current = (token, view)
        return view

    async def _open(self, size: int) -> ZipView:
        """Refuse from the size and the end record, then download or range-read the archive."""
        limits, location = self._limits, self._location
        check_size(size, limits.max_bundle_bytes, location=location, what="bundle")
        tail_start = max(0, size - TAIL_BYTES)
        data = await self._tail(tail_start, size)
        tail = data[tail_start:] if len(data) == size else data
        end = screened_end_record(tail, tail_start, limits, location)
        if size <= limits.bundle_download_bytes:
            head = await self._range(0, tail_start) if len(data) < size else b""
            return await asyncio.to_thread(self._loaded, head + data)
        known_start = min(tail_start, end.directory_start)
        if known_start < tail_start:
            tail = await self._range(known_start, tail_start) + tail
        ranged = RangedArchive(
            size, self._range, known=tail, known_start=known_start, concurrency=self._concurrency
        )
        bundle = await self._directory(ranged)
        async with ranged.spans(bundle.manifest_spans()):
            await asyncio.to_thread(bundle.index)
            saved = await asyncio.to_thread(saved_bundle, ranged, size, bundle)
        return ZipView(bundle, saved, ranged)

    async def _resumed(self, saved: SavedBundle) -> ZipView | DeferredView | None:
        limits, location = self._limits, self._location
        ranged = RangedArchive(
            saved.size,
            self._range,
            known=saved.directory,
            known_start=saved.directory_start,
            concurrency=self._concurrency,
            pinned=saved.pinned(),
        )
        try:
            check_size(saved.size, limits.max_bundle_bytes, location=location, what="bundle")
            screened_end_record(saved.directory, saved.directory_start, limits, location)
            bundle = await self._directory(ranged)
            async with ranged.spans(()):  # the manifest is pinned: nothing is fetched
                await asyncio.to_thread(bundle.index)
        except StorageError as exc:
            logger.warning("%s: read again, the saved listing is unusable: %s", location, exc)
            return None
        if saved.size <= limits.bundle_download_bytes:
            return DeferredView(bundle, saved, functools.partial(self._download, saved))
        return ZipView(bundle, saved, ranged)

    async def _directory(self, ranged: RangedArchive) -> ZipBundle:
        async with ranged.spans(()):
            return await asyncio.to_thread(
                ZipBundle.open,
                ranged,
                limits=self._limits,
                inner_root=self._inner_root,
                location=self._location,
            )

    async def _download(self, listed: SavedBundle | None = None) -> ZipView:
        """The archive in one GET (when ``listed``, only if its central directory is that one)."""
        data = await self._fs.cat(self._fs.path, location=self._location)
        if listed is not None and data[listed.directory_start :] != listed.directory:
            raise StorageError(
                "the bundle was replaced since it was listed; the next refresh reads it",
                location=self._location,
            )
        return await asyncio.to_thread(self._loaded, data)

    def _loaded(self, data: bytes) -> ZipView:
        bundle = ZipBundle.load(
            data, limits=self._limits, inner_root=self._inner_root, location=self._location
        )
        file: IO[bytes] = io.BytesIO(data)
        return ZipView(bundle, saved_bundle(file, len(data), bundle))

    async def _tail(self, start: int, size: int) -> bytes:
        """The archive's bytes from ``start``, or all of them from a server ignoring ``Range``."""
        limit = self._limits.bundle_download_bytes
        if size <= limit:
            return await self._fs.cat_range(
                self._fs.path, start, size, location=self._location, whole=size
            )
        try:
            return await self._range(start, size)
        except RangesIgnoredError as exc:
            raise LimitExceededError(
                f"{exc.message}; a bundle over Limits.bundle_download_bytes ({limit} bytes) "
                "is only read with ranged requests (serve it where Range is honoured, or raise "
                "the limit)",
                location=self._location,
            ) from exc

    async def _range(self, start: int, end: int) -> bytes:
        return await self._fs.cat_range(self._fs.path, start, end, location=self._location)
