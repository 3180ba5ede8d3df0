"""One catalog's share of the persistent cache: seeding its first refresh, saving what it learned.

A catalog's first refresh starts from the entries a previous process saved for the same
source, so a new process on an unchanged source does what a no-change refresh does: it lists,
compares fingerprints and reads nothing. Entries are keyed by the backend's location and a
digest of everything that decides a verdict (skillfs's code, the cache schema, the backend's
type, ``strict``, the ``Limits`` and the ``FormatLimits``, and a locked catalog's lock: its
digest and location): a catalog judged otherwise never reuses them, so an edited lock judges
every skill again. An entry is reused only when its fingerprint equals the listing's; bodies read
later are checked against the hash saved with it (:mod:`skills_core.catalog.bodies`).

Each skill's file digests (:mod:`skills_core.catalog.file_digests`) are saved with its entry,
and saved again, with every entry, once a reader learned new ones (``skillfs serve`` hashing a
file it could not take from the cache).

The backend's own state (:class:`~backends.capabilities.SourceState`) is saved with the entries
and given back to a new backend before its first listing: a published index or a bundle then
asks its source "changed since?" in one conditional request instead of reading it again.

Every SQLite call runs in a worker thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from backends.base import Backend
from backends.capabilities import ListedDocument, export_state, import_state
from backends.composite import CompositeBackend
from backends.limits import DEFAULT_LIMITS, Limits
from backends.memory import MemoryBackend
from skills_core.catalog.cache_codec import collector_paused, encode
from skills_core.catalog.cache_store import SCHEMA, CatalogCache, Stored
from skills_core.catalog.entries import CatalogEntry, entry_digest, is_verdict
from skills_core.catalog.file_digests import FileDigest, FileDigests
from skills_core.catalog.snapshot import EMPTY_SNAPSHOT, CatalogSnapshot
from skills_core.format.models import DEFAULT_FORMAT_LIMITS, FormatLimits

if TYPE_CHECKING:
    from skills_core.catalog.lock import SkillLock

logger = logging.getLogger("skillfs")
_T = TypeVar("_T")
DECODE_ALONE_BYTES = 1 << 20
"""A cached row larger than this (about 2,700 local skills, 4 ms to decode) is decoded in a
worker thread of its own while the backend lists, which pays off when the listing waits on
the network; a smaller one as it is read (at 1,000 local skills a second thread costs 0.3 ms
of CPU, 4% of a new process's first refresh, and saves no time)."""


class Listing(Protocol):
    """The loader's listing: a cold one reads SKILL.md files in the same pass."""

    def __call__(self, *, cold: bool) -> Awaitable[Sequence[ListedDocument]]:
        """List the backend."""


CacheOption = CatalogCache | bool | str | os.PathLike[str]
"""What every ``cache=`` takes: ``True`` for the default folder, ``False`` for none, a
:class:`CatalogCache`, or the path of a cache folder."""


def cache_link(
    cache: CacheOption,
    backend: Backend,
    *,
    strict: bool,
    limits: Limits,
    format_limits: FormatLimits,
) -> CacheLink | None:
    """The link a catalog uses, or ``None``.

    ``None`` without a cache, or for a backend whose fingerprints mean nothing to another
    process (memory: a version counter per instance).

    Raises:
        TypeError: ``cache`` is none of :data:`CacheOption`.
    """
    if isinstance(cache, bool):
        folder = CatalogCache() if cache else None
    elif isinstance(cache, CatalogCache):
        folder = cache
    elif isinstance(cache, str | os.PathLike):
        folder = CatalogCache(cache)
    else:
        raise TypeError(f"cache must be a bool, a CatalogCache or a folder's path, not {cache!r}")
    if folder is None or not _fingerprints_outlive_the_process(backend):
        return None
    return CacheLink(folder, backend, strict=strict, limits=limits, format_limits=format_limits)


def _fingerprints_outlive_the_process(backend: Backend) -> bool:
    if isinstance(backend, CompositeBackend):
        return all(map(_fingerprints_outlive_the_process, backend.backends))
    return not isinstance(backend, MemoryBackend) and not backend.location.startswith("memory:")


class CacheLink:
    """Loads and saves one catalog's entries in ``cache``.

    Args:
        cache: The cache folder's catalog file.
        backend: The catalog's backend.
        strict: The catalog's ``strict``.
        limits: The catalog's ``Limits``.
        format_limits: The catalog's ``FormatLimits``.
    """

    def __init__(
        self,
        cache: CatalogCache,
        backend: Backend,
        *,
        strict: bool,
        limits: Limits,
        format_limits: FormatLimits,
    ):
        self._cache = cache
        self._backend = backend
        self._source = backend.location
        self._judged_by = (
            SCHEMA,
            type(backend).__qualname__,
            strict,
            repr(limits),
            repr(format_limits),
        )
        default = limits == DEFAULT_LIMITS and format_limits == DEFAULT_FORMAT_LIMITS
        self._judged = ("strict" if strict else "lenient") + ("" if default else " +limits")
        self._settings = ""
        self._saved: dict[str, tuple[CatalogEntry, bytes]] = {}
        self._state: bytes | None = None  # the backend's, as saved or loaded

    async def seed_while(
        self, listing: Listing, files: FileDigests, lock: SkillLock | None = None
    ) -> tuple[CatalogSnapshot, Sequence[ListedDocument]]:
        """The snapshot saved for this source (or an empty one), and the backend's listing.

        ``files`` gets the file digests saved with the snapshot.

        When the cache holds the source, as judged by this catalog (with ``lock``, when it has
        one), the listing reads nothing; otherwise it is a cold one. A small row is decoded as
        it is read, in the same worker call; a large one while the backend lists (stat calls
        and requests wait without holding the GIL), in a second worker thread, which costs more
        than it saves below :data:`DECODE_ALONE_BYTES`.
        """
        read = await self._guarded(functools.partial(self._read, files, lock), None)
        if read is None:
            return EMPTY_SNAPSHOT, await listing(cold=True)
        stored, seed = read
        self._state = stored.state
        import_state(self._backend, stored.state)
        if seed is not None:
            return seed, await listing(cold=False)
        seed_now = functools.partial(self._seed, stored, files)
        seeding = asyncio.ensure_future(self._guarded(seed_now, None))
        try:
            listed = await listing(cold=False)
        finally:
            seed = await seeding
        return seed or EMPTY_SNAPSHOT, listed

    async def save(
        self, snapshot: CatalogSnapshot, files: FileDigests, *, seeded_from: CatalogSnapshot
    ) -> None:
        """Save ``snapshot``'s entries and ``files``, unless both are as seeded (or saved).

        The backend's state is saved with them, or alone when only it changed.
        """
        state = export_state(self._backend)
        if snapshot is not seeded_from or files.unsaved:
            save = functools.partial(self._save, snapshot.entries, files.to_save(), state)
            await self._guarded(save, None)
        elif state != self._state and self._settings:
            save = functools.partial(self._cache.save_state, self._source, self._settings, state)
            await self._guarded(save, None)
        self._state = state

    async def _guarded(self, work: Callable[[], _T], failed: _T) -> _T:
        """``work()`` in a worker thread; ``failed`` if it raises (a cache is never fatal)."""
        try:
            return await asyncio.to_thread(work)
        except Exception:
            logger.warning("%s: went without the catalog cache", self._source, exc_info=True)
            return failed

    def _read(
        self, files: FileDigests, lock: SkillLock | None
    ) -> tuple[Stored, CatalogSnapshot | None] | None:
        """The row saved for this source, and its snapshot when the row is small."""
        judged_by: tuple[object, ...] = self._judged_by
        if lock is not None:  # its refusals name where it is
            judged_by += (lock.digest, lock.location)
            self._judged = self._judged.removesuffix(" +lock") + " +lock"
        self._settings = _settings_digest(judged_by)
        stored = self._cache.stored(self._source, self._settings)
        if stored is None:
            return None
        if len(stored.data) > DECODE_ALONE_BYTES:
            return stored, None
        return stored, self._seed(stored, files) or EMPTY_SNAPSHOT

    def _seed(self, stored: Stored, files: FileDigests) -> CatalogSnapshot | None:
        with collector_paused():  # the snapshot's mappings are as many objects again
            decoded = self._cache.decoded(self._source, stored)
            if not decoded or not decoded[0]:
                return None
            files.restore(decoded[1])
            return CatalogSnapshot.build(decoded[0])

    def _save(
        self,
        entries: Mapping[str, CatalogEntry],
        files: Mapping[str, tuple[FileDigest, ...]],
        state: bytes | None,
    ) -> None:
        if not self._settings:  # the digest of the settings could not be made: no key to use
            return
        saved, kept = self._saved, {}
        for folder, entry in entries.items():
            if is_verdict(entry):
                known = saved.get(folder)  # saved before: its SKILL.md is hashed already
                digest = known[1] if known and known[0] is entry else entry_digest(entry)
                kept[folder] = (entry, digest)
        self._saved = kept
        verdicts = {folder: pair[0] for folder, pair in kept.items()}
        digests = [pair[1] for pair in kept.values()]
        data = encode(verdicts, digests, [files.get(folder, ()) for folder in verdicts])
        self._cache.save(
            self._source, self._settings, data, len(verdicts), judged=self._judged, state=state
        )


@functools.cache
def _settings_digest(judged_by: tuple[object, ...]) -> str:
    """A digest of what decides a verdict, and of the code that judges (blocking).

    The code is known by the size and modification time of every module that lists, parses or
    judges (about 80 stats, 0.5 ms): another skillfs version, or a local edit, never reuses
    entries judged by this one. (Asking the installed distribution's version costs 17 ms.)
    """
    stamp = [
        (str(path.relative_to(_PACKAGES)), info.st_size, info.st_mtime_ns)
        for folder in _JUDGING_CODE
        for path in sorted(folder.rglob("*.py"))
        for info in (path.stat(),)
    ]
    return hashlib.sha256(repr((stamp, *judged_by)).encode()).hexdigest()[:32]


_PACKAGES = Path(__file__).parents[2]
_JUDGING_CODE = (
    _PACKAGES / "backends",
    _PACKAGES / "skills_core" / "format",
    Path(__file__).parent,
)
