"""Whole bodies for catalogs that hold none: read on demand, derived, then dropped.

A catalog built with ``keep_bodies=False``, or whose skills came from the persistent cache,
holds no SKILL.md bytes. Search and selection still derive their values from whole bodies:
:class:`BodyReads` reads the bodies a sync will need through the catalog's own body path
(:meth:`~skills_core.catalog.catalog.SkillCatalog.with_body`: checked against each entry's
fingerprint and hash), :data:`BODY_READS` at a time, and derives each skill's value in a worker
thread :data:`CHUNK` skills at a time, so at most a chunk of bodies is in memory at once and
the values (word counts) are all that stays. A body being read by one task is awaited, not
read again, by another of the same event loop.

Skills a source listed with their frontmatter (MCP) are derived from their metadata alone
(:func:`derived_as_held`): search never fetches their SKILL.md.

A synchronous caller never reads storage: a sync that needs a value nobody derived raises
:class:`BodiesNotRead`. :func:`run_with_bodies` reads first, then runs the work in a worker
thread, where :func:`skill_body` (the one body the injection or the coordinator chose) is read
on the event loop that started the thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Generic, TypeVar

from backends.errors import StorageError
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.format.models import SkillMetadata

logger = logging.getLogger("skillfs")

T = TypeVar("T")
R = TypeVar("R")

BODY_READS = 16
"""SKILL.md bodies read at once for a catalog that does not hold them."""

CHUNK = 256
"""Skills whose bodies are read, then derived in one worker thread, at a time."""

_ATTEMPTS = 3
"""How often :func:`run_with_bodies` reads again when a refresh changed skills meanwhile."""

_LOOP: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar("skillfs_bodies", default=None)
"""The event loop a :func:`run_with_bodies` worker thread reads bodies on."""

Derive = Callable[[str, CatalogEntry, SkillMetadata], T]
"""Builds the value of one loaded skill from its name in the catalog, its entry and metadata."""

Key = tuple[str, str, str, bytes]


class BodiesNotRead(RuntimeError):
    """A synchronous search or selection needs SKILL.md bodies its catalog does not hold."""


def derived_as_held(entry: CatalogEntry) -> bool:
    """Whether a skill's value is derived from what its entry holds, with no read.

    True for an entry holding its SKILL.md, and for one its source listed: search ranks such a
    skill by its metadata alone, since its SKILL.md is fetched only when the skill is used.
    """
    return bool(entry.raw) or entry.listed is not None


def entry_key(entry: CatalogEntry) -> Key:
    """What tells one entry's content from another's: folder, fingerprint, location, hash."""
    return entry.name, entry.fingerprint, entry.location, entry.digest


class BodyReads(Generic[T]):
    """Values derived from bodies read on demand, until a sync takes them.

    Args:
        catalog: Where the bodies are read.
        derive: Builds one skill's value from an entry holding its body.
    """

    def __init__(self, catalog: SkillCatalog, derive: Derive[T]) -> None:
        self._catalog = catalog
        self._derive = derive
        self._ready: dict[Key, T] = {}
        self._reading: dict[Key, asyncio.Future[None]] = {}

    def __contains__(self, entry: CatalogEntry) -> bool:
        return entry_key(entry) in self._ready

    def take(self, entry: CatalogEntry) -> T:
        """The value derived for ``entry``, forgotten here."""
        return self._ready.pop(entry_key(entry))

    def keep_only(self, entries: Iterable[CatalogEntry]) -> None:
        """Forget values of entries (not in ``entries``) a refresh replaced before a sync."""
        if not self._ready:
            return
        for key in self._ready.keys() - set(map(entry_key, entries)):
            del self._ready[key]

    async def read(self, wanted: Sequence[tuple[str, CatalogEntry]]) -> int:
        """Read and derive the ``(name, entry)`` pairs not derived or under way; how many."""
        loop = asyncio.get_running_loop()
        mine: list[tuple[str, CatalogEntry, asyncio.Future[None]]] = []
        theirs: list[asyncio.Future[None]] = []  # reads another task of this loop started
        for name, entry in wanted:
            key = entry_key(entry)
            started = self._reading.get(key)
            if key in self._ready:
                continue
            if started is not None and started.get_loop() is loop:
                theirs.append(started)
            else:
                done: asyncio.Future[None] = loop.create_future()
                self._reading.setdefault(key, done)  # another loop's read stays its own
                mine.append((name, entry, done))
        try:
            for start in range(0, len(mine), CHUNK):
                await self._read_chunk(mine[start : start + CHUNK])
        finally:
            for _, entry, done in mine:
                if self._reading.get(entry_key(entry)) is done:
                    del self._reading[entry_key(entry)]
                if not done.done():
                    done.set_result(None)
        await asyncio.gather(*theirs)
        return len(mine)

    async def _read_chunk(self, chunk: Sequence[tuple[str, CatalogEntry, object]]) -> None:
        held: dict[Key, CatalogEntry] = {}
        pending = iter(chunk)

        async def reader() -> None:
            for _, entry, _ in pending:
                try:
                    held[entry_key(entry)] = await self._catalog.with_body(entry)
                except StorageError as exc:
                    logger.warning("%s: searched without its body: %s", entry.location, exc)
                    held[entry_key(entry)] = entry

        await asyncio.gather(*(reader() for _ in range(min(BODY_READS, len(chunk)))))

        def derive() -> list[T]:
            values = []
            for name, entry, _ in chunk:
                assert entry.metadata is not None  # only loaded skills are derived
                values.append(self._derive(name, held[entry_key(entry)], entry.metadata))
            return values

        for (_, entry, _), value in zip(chunk, await asyncio.to_thread(derive), strict=True):
            self._ready[entry_key(entry)] = value


async def run_with_bodies(read_bodies: Callable[[], Awaitable[int]], work: Callable[[], R]) -> R:
    """``work()`` in a worker thread, after ``read_bodies()`` read what it needs.

    Read again when a refresh changed skills between the reads and the work
    (:class:`BodiesNotRead`); :func:`skill_body` in ``work`` reads on this event loop.
    """
    token = _LOOP.set(asyncio.get_running_loop())  # to_thread copies the context
    try:
        for attempt in range(_ATTEMPTS):
            await read_bodies()
            try:
                return await asyncio.to_thread(work)
            except BodiesNotRead:
                if attempt == _ATTEMPTS - 1:
                    raise
    finally:
        _LOOP.reset(token)
    raise AssertionError("unreachable")


def skill_body(catalog: SkillCatalog, name: str) -> str | None:
    """A loaded skill's instructions; ``None`` when it is gone or can no longer be read.

    A body the catalog does not hold is read, checked, on the event loop of the
    :func:`run_with_bodies` that runs this thread.

    Raises:
        BodiesNotRead: The catalog does not hold it, outside :func:`run_with_bodies`.
    """
    entry = catalog.snapshot.loaded.get(name)
    if entry is None or not entry.loaded:
        return None
    if not entry.raw:
        loop = _LOOP.get()
        if loop is None or _in_event_loop():
            raise BodiesNotRead(
                f"{catalog.backend.location} does not hold the body of {name!r}: select with "
                "the async adapters (AutoSkillsPlugin, SkillContextProvider) or run_selection()"
            )
        try:
            entry = asyncio.run_coroutine_threadsafe(catalog.with_body(entry), loop).result()
        except StorageError as exc:
            logger.warning("%s: left out, its body could not be read: %s", entry.location, exc)
            return None
    return entry.body.strip()


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
