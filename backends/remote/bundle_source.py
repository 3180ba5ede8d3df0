"""Zip bundles on any storage: a HEAD per refresh, the end record first, then the archive.

A refresh asks for the archive's details (one HEAD) and stops there when its fingerprint did
not move. Otherwise it reads the archive's tail (one ranged GET, the whole archive when it is
small) and refuses it from the end record alone when it declares too many members. A bundle
up to ``Limits.bundle_download_bytes`` is then downloaded (one more GET) and served from
memory; a larger one stays where it is: its central directory is fetched once and its members
are read with ranged requests as they are needed (:mod:`backends.remote.ranged`).

An HTTP server that ignores ``Range`` answers the tail's GET with the whole archive: a bundle
up to ``bundle_download_bytes`` is then served from that answer, never downloaded again, and
a larger one is refused before its body is read.

The archive's listing is exported (:mod:`backends.remote.bundle_state`): a new process given
it, whose HEAD finds the same fingerprint and size, lists the archive without another request.
It reads the members of a large archive with ranged requests, as always; a smaller archive is
downloaded on the first read (one GET, as a first load's) and served only when its central
directory is the one listed.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import IO

from backends.errors import LimitExceededError, StorageError
from backends.limits import Limits, check_size
from backends.remote.bundle_state import SavedBundle, saved_bundle
from backends.remote.filesystem import RemoteFS
from backends.remote.fingerprints import fingerprint
from backends.remote.foreign_errors import RangesIgnoredError
from backends.remote.layout import Layout, StoredFile
from backends.remote.ranged import RangedArchive
from backends.remote.zip_end import TAIL_BYTES, read_end_record
from backends.remote.zipsafety import ZipBundle, check_end_record

logger = logging.getLogger("skillfs")


class ZipView:
    """Files inflated from one screened archive, in worker threads.

    Args:
        bundle: The archive.
        saved: What a new process needs to list it again (its fingerprint aside).
        ranged: Where its bytes come from when it was not downloaded whole.
    """

    def __init__(
        self, bundle: ZipBundle, saved: SavedBundle, ranged: RangedArchive | None = None
    ) -> None:
        self._bundle = bundle
        self._ranged = ranged
        self.saved = saved

    @property
    def layout(self) -> Layout:
        """The skill folders of the archive."""
        return self._bundle.layout

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
    """A bundle listed from a saved listing, whose archive is downloaded on the first read.

    Args:
        listed: The archive as listed from the saved listing.
        saved: That listing.
        download: Downloads the archive, refusing one whose listing is not ``saved``.
    """

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

    @property
    def layout(self) -> Layout:
        """The skill folders of the archive."""
        return self._listed.layout

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
    """A zip bundle: one HEAD per refresh, and the archive again only when it changed.

    Args:
        fs: The storage holding the archive.
        inner_root: The skills folder inside the archive (``None``: found from its members).
        limits: The bundle limits.
        location: The archive's URL, for messages.
        concurrency: Most ranged requests in flight at once for a large archive.
    """

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
        """Check the archive's fingerprint; read and screen it again only if it changed.

        Raises:
            LimitExceededError: The archive breaks a whole-bundle limit.
            StorageError: The archive is missing, unreadable or not a zip.
        """
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

    async def aclose(self) -> None:
        """Close the filesystem's session; the archive held in memory is dropped."""
        self._current = None
        await self._fs.aclose()

    async def _open(self, size: int) -> ZipView:
        """Refuse from the size and the end record, then download or range-read the archive."""
        limits, location = self._limits, self._location
        check_size(size, limits.max_bundle_bytes, location=location, what="bundle")
        tail_start = max(0, size - TAIL_BYTES)
        data = await self._tail(tail_start, size)
        tail = data[tail_start:] if len(data) == size else data
        end = read_end_record(tail, tail_start, location=location)
        check_end_record(end, limits, location)
        if size <= limits.bundle_download_bytes:
            head = await self._range(0, tail_start) if len(data) < size else b""
            return await self._in_memory(head + data)
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
        """The archive listed from a saved listing, or ``None`` when that cannot be used."""
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
            end = read_end_record(saved.directory, saved.directory_start, location=location)
            check_end_record(end, limits, location)
            bundle = await self._directory(ranged)
            async with ranged.spans(()):  # the manifest is pinned: nothing is fetched
                await asyncio.to_thread(bundle.index)
        except StorageError as exc:
            logger.warning("%s: read again, the saved listing is unusable: %s", location, exc)
            return None
        if saved.size <= limits.bundle_download_bytes:
            return DeferredView(bundle, saved, functools.partial(self._listed_as, saved))
        return ZipView(bundle, saved, ranged)

    async def _listed_as(self, saved: SavedBundle) -> ZipView:
        """The archive in one GET, provided its central directory is the one ``saved`` lists.

        Raises:
            StorageError: It was replaced since it was listed (the next refresh lists it).
        """
        data = await self._fs.cat(self._fs.path, location=self._location)
        if data[saved.directory_start :] != saved.directory:
            raise StorageError(
                "the bundle was replaced since it was listed; the next refresh reads it",
                location=self._location,
            )
        return await self._in_memory(data)

    async def _directory(self, ranged: RangedArchive) -> ZipBundle:
        """The archive's central directory, screened (from the bytes ``ranged`` knows)."""
        async with ranged.spans(()):
            return await asyncio.to_thread(
                ZipBundle.open,
                ranged,
                limits=self._limits,
                inner_root=self._inner_root,
                location=self._location,
            )

    async def _download(self) -> ZipView:
        """The whole archive in one GET, when the store gives no size to plan with."""
        return await self._in_memory(await self._fs.cat(self._fs.path, location=self._location))

    async def _in_memory(self, data: bytes) -> ZipView:
        return await asyncio.to_thread(self._loaded, data)

    def _loaded(self, data: bytes) -> ZipView:
        """Screen and index an archive held in memory (blocking)."""
        bundle = ZipBundle.load(
            data, limits=self._limits, inner_root=self._inner_root, location=self._location
        )
        file: IO[bytes] = io.BytesIO(data)
        return ZipView(bundle, saved_bundle(file, len(data), bundle))

    async def _tail(self, start: int, size: int) -> bytes:
        """The archive's bytes from ``start``, or all of them when the server sends them all.

        A server that ignores ``Range`` answers with the whole archive: it is kept when it may
        be downloaded whole, and refused unread when it is over ``bundle_download_bytes``.
        """
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
