"""Values derived from each skill a model may choose, re-derived only for skills a refresh changed.

A catalog without SKILL.md bodies (``keep_bodies=False``, the persistent cache) has them read
by :meth:`DerivedSkills.read_bodies`; a synchronous sync never reads storage and raises
:class:`BodiesNotRead` instead. What a value needs of a body (a :class:`BodyPart`) is kept in
the persistent cache by the SKILL.md's digest, so a new process reads no body.
:func:`run_with_bodies` reads first, then runs the work in a worker thread, where
:func:`skill_body` reads a chosen body on the caller's loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Generic, NamedTuple, TypeVar

from backends._errors import StorageError
from skills_core._catalog.cache import collector_paused
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry, entry_digest
from skills_core._catalog.snapshot import CatalogSnapshot
from skills_core._format.models import SkillMetadata

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

Derive = Callable[[str, CatalogEntry, SkillMetadata, bytes], T]
"""Makes a value from a skill's folder, entry, metadata and body (or its :class:`BodyPart`)."""

Key = tuple[str, str, str, bytes]


class BodiesNotRead(RuntimeError):
    """A synchronous search or selection needs SKILL.md bodies its catalog does not hold."""


class BodyPart(NamedTuple):
    """What a value needs of a SKILL.md body, kept in the persistent cache by the file's digest.

    ``make(body)`` gives it, and the value made from it must equal the one made from the body.
    ``kind`` names it in the cache, with the version of the code that makes it.
    """

    kind: str
    make: Callable[[bytes], bytes]


class _Slot(NamedTuple, Generic[T]):
    entry: CatalogEntry
    value: T


class DerivedSkills(Generic[T]):
    """A value per loaded skill of ``catalog`` a model may choose (thread-safe).

    Attributes:
        derived: How many values were built so far (a refresh that changed one skill adds 1).
    """

    def __init__(
        self, catalog: SkillCatalog, derive: Derive[T], part: BodyPart | None = None
    ) -> None:
        self._catalog = catalog
        self._derive = derive
        self._snapshot: CatalogSnapshot | None = None
        self._slots: dict[str, _Slot[T]] = {}
        self._lock = threading.Lock()
        self._reads = _BodyReads(catalog, derive, part)
        self._kept = part is not None and catalog.derived_store is not None
        self.derived = 0

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog followed."""
        return self._catalog

    def values(self) -> list[T]:
        """Every value, in the catalog's (name) order, after a sync."""
        self.sync()
        return [slot.value for slot in self._slots.values()]

    def sync(self) -> tuple[list[T], list[T]]:
        """Catch up with the catalog's current snapshot: the values added and removed since.

        A changed skill's old value is removed and its new one added.

        Raises:
            BodiesNotRead: A skill to derive holds no body and :meth:`read_bodies` did not
                read it (nothing changed).
        """
        with self._lock:
            snapshot = self._catalog.snapshot
            if snapshot is self._snapshot:
                return [], []
            with collector_paused():
                return self._catch_up(snapshot)

    async def read_bodies(self) -> int:
        """Derive the values the next sync needs from what the cache keeps, or bodies; how many.

        With a :class:`BodyPart` and a persistent cache, held bodies' parts are kept there too.
        A body that cannot be read is logged, and its skill derived without it.
        """
        stale = self._stale(self._catalog.snapshot)
        kept = self._kept
        return await self._reads.read(
            [(name, entry) for name, entry in stale if not _held(entry) or (kept and entry.raw)]
        )

    def _stale(self, snapshot: CatalogSnapshot) -> list[tuple[str, CatalogEntry]]:
        """The loaded skills of ``snapshot`` whose values are missing or out of date."""
        if snapshot is self._snapshot:
            return []
        slots = self._slots  # read_bodies() reads it while a sync may build the next one
        return [
            (name, entry)
            for name, entry in snapshot.loaded.items()
            if ((slot := slots.get(name)) is None or not _same(slot.entry, entry))
            and entry.metadata is not None
            and entry.metadata.model_invocable
        ]

    def _catch_up(self, snapshot: CatalogSnapshot) -> tuple[list[T], list[T]]:
        fresh = dict(self._stale(snapshot))
        unread = sum(1 for entry in fresh.values() if not _held(entry) and entry not in self._reads)
        if unread:
            raise BodiesNotRead(
                f"{unread} skills of {self._catalog.backend.location} hold no SKILL.md body "
                "(keep_bodies=False, or restored from the persistent cache): use search_async(), "
                "or await read_bodies() before a synchronous search or selection"
            )
        old, slots = dict(self._slots), {}  # a copy: read_bodies() reads the slots meanwhile
        added: list[T] = []
        for name, entry in snapshot.loaded.items():
            slot = old.pop(name, None)
            if name in fresh and entry.metadata is not None:
                if slot is not None:
                    old[name] = slot  # still to be reported as removed
                value = (
                    self._reads.take(entry)
                    if entry in self._reads
                    else self._derive(name, entry, entry.metadata, _body(entry))
                )
                slot = _Slot(entry, value)
                added.append(value)
                self.derived += 1
            elif slot is None or not _same(slot.entry, entry):
                if slot is not None:
                    old[name] = slot  # changed into a skill no model may choose: removed
                continue
            slots[name] = slot
        self._reads.keep_only(snapshot.loaded.values())
        self._slots, self._snapshot = slots, snapshot
        return added, [slot.value for slot in old.values()]


class _BodyReads(Generic[T]):
    """Values derived from bodies read on demand, until a sync takes them (read once per loop)."""

    def __init__(self, catalog: SkillCatalog, derive: Derive[T], part: BodyPart | None) -> None:
        self._catalog = catalog
        self._derive = derive
        self._part = part
        self._ready: dict[Key, T] = {}
        self._reading: dict[Key, asyncio.Future[None]] = {}

    def __contains__(self, entry: CatalogEntry) -> bool:
        return _key(entry) in self._ready

    def take(self, entry: CatalogEntry) -> T:
        """The value derived for ``entry``, forgotten here."""
        return self._ready.pop(_key(entry))

    def keep_only(self, entries: Iterable[CatalogEntry]) -> None:
        """Forget the values of entries not in ``entries``."""
        if not self._ready:
            return
        for key in self._ready.keys() - set(map(_key, entries)):
            del self._ready[key]

    async def read(self, wanted: Sequence[tuple[str, CatalogEntry]]) -> int:
        """Read and derive the ``(name, entry)`` pairs not derived or under way; how many."""
        loop = asyncio.get_running_loop()
        mine: list[tuple[str, CatalogEntry, asyncio.Future[None]]] = []
        theirs: list[asyncio.Future[None]] = []  # reads another task of this loop started
        for name, entry in wanted:
            key = _key(entry)
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
                if self._reading.get(_key(entry)) is done:
                    del self._reading[_key(entry)]
                if not done.done():
                    done.set_result(None)
        await asyncio.gather(*theirs)
        return len(mine)

    async def _read_chunk(self, chunk: Sequence[tuple[str, CatalogEntry, object]]) -> None:
        part, store = self._part, self._catalog.derived_store
        stored: dict[bytes, bytes] = {}
        if part is not None and store is not None:
            digests = await asyncio.to_thread(lambda: [entry_digest(e) for _, e, _ in chunk])
            found = await store.derived(part.kind, digests)
            stored = {key: value for key, value in found.items() if isinstance(value, bytes)}
        held = {_key(entry): entry for _, entry, _ in chunk}
        pending = iter([e for _, e, _ in chunk if not e.raw and e.digest not in stored])

        async def reader() -> None:
            for entry in pending:
                try:
                    held[_key(entry)] = await self._catalog.with_body(entry)
                except StorageError as exc:
                    logger.warning("%s: searched without its body: %s", entry.location, exc)

        await asyncio.gather(*(reader() for _ in range(min(BODY_READS, len(chunk)))))

        def derive() -> tuple[list[T], dict[bytes, object]]:
            values: list[T] = []
            made: dict[bytes, object] = {}
            for name, entry, _ in chunk:
                assert entry.metadata is not None  # only loaded skills are derived
                body = held[_key(entry)]
                digest = entry_digest(body)
                text = stored.get(digest)
                if text is None:
                    text = _body(body)
                    if part is not None and store is not None and body.raw:
                        text = made[digest] = part.make(text)
                values.append(self._derive(name, body, entry.metadata, text))
            return values, made

        values, made = await asyncio.to_thread(derive)
        for (_, entry, _), value in zip(chunk, values, strict=True):
            self._ready[_key(entry)] = value
        if made and part is not None and store is not None:
            await store.save_derived(part.kind, made)


async def run_with_bodies(read_bodies: Callable[[], Awaitable[int]], work: Callable[[], R]) -> R:
    """``work()`` in a worker thread, after ``read_bodies()`` (again if a refresh came between)."""
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

    Raises:
        BodiesNotRead: The catalog does not hold it, outside :func:`run_with_bodies`.
    """
    entry = catalog.snapshot.loaded.get(name)
    if entry is None or not entry.loaded:
        return None
    if not entry.raw:
        loop = caller_loop()
        if loop is None:
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


def caller_loop() -> asyncio.AbstractEventLoop | None:
    """The loop of the :func:`run_with_bodies` whose worker thread this is (``None`` elsewhere)."""
    loop = _LOOP.get()
    return None if loop is None or _in_event_loop() else loop


def _body(entry: CatalogEntry) -> bytes:
    """The SKILL.md body an entry holds (empty when it holds none)."""
    return entry.raw[entry.body_start :]


def _held(entry: CatalogEntry) -> bool:
    """Whether a skill's value needs no read: its entry holds its SKILL.md, or was listed (MCP)."""
    return bool(entry.raw) or entry.listed is not None


def _key(entry: CatalogEntry) -> Key:
    """What tells one entry's content from another's: folder, fingerprint, location, hash."""
    return entry.name, entry.fingerprint, entry.location, entry.digest


def _same(before: CatalogEntry, after: CatalogEntry) -> bool:
    """The same skill content: the same entry, or a touched file with equal bytes."""
    return before is after or before.same_content(after)


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
