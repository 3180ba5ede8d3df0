"""Values derived from each loaded skill of a catalog, rebuilt only for skills that changed.

Selection and search tokenize every skill once; after that, :meth:`DerivedSkills.sync` costs
one identity check per skill when the catalog refreshed (a few milliseconds for 10,000
skills) and nothing at all when it did not. A refresh that changes 1 skill of 10,000
re-derives that one skill. A sync that derives runs with the cyclic garbage collector paused:
the millions of objects 10,000 large skills give hold no cycles, yet set off collections that
examine them (0.2 s of CPU time for 10,000 real-sized skills).

A catalog that holds no SKILL.md bodies (``keep_bodies=False``, or skills restored from the
persistent cache) still gets values derived from whole bodies: :meth:`DerivedSkills.read_bodies`
reads, through the catalog's own body path (checked against each entry's fingerprint and hash),
the body of each skill the next sync will derive, :data:`BODY_READS` at a time; a sync drops
each body once its value is derived. So an unchanged restart reads each body once, when the
values are first asked for, and a refresh that changes 1 skill reads 1. A sync that needs a
body nobody read raises :class:`BodiesNotRead` rather than derive from nothing:
:func:`run_with_bodies` reads them first, then runs the work in a worker thread. That work
may ask for one more body (:func:`skill_body`: the skill injection or the coordinator chose):
the worker thread has it read on the event loop that started it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Generic, NamedTuple, TypeVar

from backends.errors import StorageError
from skills_core.catalog.cache_codec import collector_paused
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.snapshot import CatalogSnapshot
from skills_core.format.models import SkillMetadata

logger = logging.getLogger("skillfs")

T = TypeVar("T")
R = TypeVar("R")

BODY_READS = 16
"""SKILL.md bodies read at once for a catalog that does not hold them."""

_ATTEMPTS = 3
"""How often :func:`run_with_bodies` reads bodies again when a refresh changed skills meanwhile."""

Derive = Callable[[str, CatalogEntry, SkillMetadata], T]
"""Builds the value of one loaded skill from its name in the catalog, its entry and metadata."""


class Changes(NamedTuple, Generic[T]):
    """What a sync replaced: a changed skill's old value is removed and its new one added."""

    added: Sequence[T]
    removed: Sequence[T]


_LOOP: ContextVar[asyncio.AbstractEventLoop | None] = ContextVar("skillfs_bodies", default=None)
"""The event loop a :func:`run_with_bodies` worker thread reads bodies on."""


class BodiesNotRead(RuntimeError):
    """A sync needs SKILL.md bodies its catalog does not hold, and nobody read them yet."""


_Key = tuple[str, str, str, int]


def _key(entry: CatalogEntry) -> _Key:
    return entry.name, entry.fingerprint, entry.location, entry.digest


class _Slot(NamedTuple, Generic[T]):
    entry: CatalogEntry
    value: T


class DerivedSkills(Generic[T]):
    """A value per loaded skill of ``catalog``, kept in step with its snapshot.

    Thread-safe: syncs are serialised, so worker threads may share one instance.

    Args:
        catalog: The catalog to follow.
        derive: Builds one skill's value.

    Attributes:
        derived: How many values were built so far (a refresh that changed one skill adds 1).
    """

    def __init__(self, catalog: SkillCatalog, derive: Derive[T]) -> None:
        self._catalog = catalog
        self._derive = derive
        self._snapshot: CatalogSnapshot | None = None
        self._slots: dict[str, _Slot[T]] = {}
        self._lock = threading.Lock()
        self._read: dict[_Key, CatalogEntry] = {}  # bodies read for the next sync
        self._reading: dict[_Key, asyncio.Future[None]] = {}  # reads under way
        self.derived = 0

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog followed."""
        return self._catalog

    def values(self) -> list[T]:
        """Every loaded skill's value, in the catalog's (name) order, after a sync."""
        self.sync()
        return [slot.value for slot in self._slots.values()]

    def sync(self) -> Changes[T]:
        """Catch up with the catalog's current snapshot; what changed since the last sync.

        Raises:
            BodiesNotRead: A skill to derive holds no body and :meth:`read_bodies` did not
                read it (nothing changed).
        """
        with self._lock:
            snapshot = self._catalog.snapshot
            if snapshot is self._snapshot:
                return Changes((), ())
            with collector_paused():
                return self._catch_up(snapshot)

    async def read_bodies(self) -> int:
        """Read the body of every skill the next sync derives whose entry holds none; how many.

        A body that cannot be read (the file is gone or broken since the last refresh) is
        logged, and its skill derived without it until it changes.
        """
        snapshot = self._catalog.snapshot
        loop = asyncio.get_running_loop()
        mine: list[tuple[CatalogEntry, asyncio.Future[None]]] = []
        theirs: list[asyncio.Future[None]] = []  # reads another task of this loop started
        for _, entry in self._stale(snapshot):
            key = _key(entry)
            if entry.raw or key in self._read:
                continue
            started = self._reading.get(key)
            if started is not None and started.get_loop() is loop:
                theirs.append(started)
            else:
                done: asyncio.Future[None] = loop.create_future()
                self._reading.setdefault(key, done)  # another loop's read stays its own
                mine.append((entry, done))
        pending = iter(mine)

        async def reader() -> None:
            for entry, done in pending:
                try:
                    self._read[_key(entry)] = await self._catalog.with_body(entry)
                except StorageError as exc:
                    logger.warning("%s: derived without its body: %s", entry.location, exc)
                    self._read[_key(entry)] = entry
                finally:
                    if self._reading.get(_key(entry)) is done:
                        del self._reading[_key(entry)]
                    if not done.done():
                        done.set_result(None)

        readers = (reader() for _ in range(min(BODY_READS, len(mine))))
        await asyncio.gather(*readers, *theirs)
        return len(mine)

    def _stale(self, snapshot: CatalogSnapshot) -> list[tuple[str, CatalogEntry]]:
        """The loaded skills of ``snapshot`` whose values are missing or out of date."""
        if snapshot is self._snapshot:
            return []
        slots = self._slots
        return [
            (name, entry)
            for name, entry in snapshot.loaded.items()
            if entry.metadata is not None
            and ((slot := slots.get(name)) is None or not _same(slot.entry, entry))
        ]

    def _catch_up(self, snapshot: CatalogSnapshot) -> Changes[T]:
        stale = self._stale(snapshot)
        unread = sum(1 for _, entry in stale if not entry.raw and _key(entry) not in self._read)
        if unread:
            raise BodiesNotRead(
                f"{unread} skills of {self._catalog.backend.location} hold no SKILL.md body "
                "(keep_bodies=False, or restored from the persistent cache): use search_async(), "
                "or await read_bodies() before a synchronous search or selection"
            )
        fresh = dict(stale)
        old, slots = dict(self._slots), {}  # a copy: read_bodies() reads the slots meanwhile
        added: list[T] = []
        for name, entry in snapshot.loaded.items():
            if entry.metadata is None:
                continue
            slot = old.pop(name, None)
            if name in fresh:
                if slot is not None:
                    old[name] = slot  # still to be reported as removed
                held = entry if entry.raw else self._read.pop(_key(entry))
                slot = _Slot(entry, self._derive(name, held, entry.metadata))
                added.append(slot.value)
                self.derived += 1
            assert slot is not None
            slots[name] = slot
        if self._read:  # bodies read for skills a refresh replaced before they were derived
            live = {_key(entry) for entry in snapshot.loaded.values()}
            for key in [key for key in list(self._read) if key not in live]:
                self._read.pop(key, None)
        self._slots, self._snapshot = slots, snapshot
        return Changes(added, [slot.value for slot in old.values()])


async def run_with_bodies(skills: DerivedSkills[T], work: Callable[[], R]) -> R:
    """``work()`` (which syncs ``skills``) in a worker thread, once the bodies it needs are read.

    Bodies are read again when a refresh changed skills between the reads and the sync;
    :func:`skill_body` in ``work`` reads a body on this event loop.
    """
    token = _LOOP.set(asyncio.get_running_loop())  # to_thread copies the context
    try:
        for attempt in range(_ATTEMPTS):
            await skills.read_bodies()
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
    if not entry.raw and not catalog.keeps_bodies:
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


def _same(before: CatalogEntry, after: CatalogEntry) -> bool:
    """The same skill content: the same entry, or a touched file with equal bytes."""
    return before is after or before.same_content(after)
