"""Values derived from each skill a model may choose, rebuilt only for skills that changed.

These are the candidates of every built-in selector: a skill only a user may invoke
(``disable-model-invocation: true``) gets no value, so ranked search and ``select_skills``
never find it.

Selection and search tokenize every skill once; after that, :meth:`DerivedSkills.sync` costs
one identity check per skill when the catalog refreshed (a few milliseconds for 10,000
skills) and nothing at all when it did not. A refresh that changes 1 skill of 10,000
re-derives that one skill. A sync that derives runs with the cyclic garbage collector paused:
the millions of objects 10,000 large skills give hold no cycles, yet set off collections that
examine them (0.2 s of CPU time for 10,000 real-sized skills).

Where the catalog holds no SKILL.md bodies (``keep_bodies=False``, or skills restored from the
persistent cache), :meth:`DerivedSkills.read_bodies` reads and derives, before the sync, the
skills it will derive (:mod:`skills_core.context.body_reads`): an unchanged restart reads each
body once, when the values are first asked for, and a refresh that changes 1 skill reads 1.
A sync that needs a value nobody derived raises
:class:`~skills_core.context.body_reads.BodiesNotRead` rather than derive from no body.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Generic, NamedTuple, TypeVar

from skills_core.catalog.cache import collector_paused
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.snapshot import CatalogSnapshot
from skills_core.context.body_reads import BodiesNotRead, BodyReads, Derive, derived_as_held

T = TypeVar("T")


class Changes(NamedTuple, Generic[T]):
    """What a sync replaced: a changed skill's old value is removed and its new one added."""

    added: Sequence[T]
    removed: Sequence[T]


class _Slot(NamedTuple, Generic[T]):
    entry: CatalogEntry
    value: T


class DerivedSkills(Generic[T]):
    """A value per loaded skill of ``catalog`` a model may choose, kept in step with its snapshot.

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
        self._reads = BodyReads(catalog, derive)
        self.derived = 0

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog followed."""
        return self._catalog

    def values(self) -> list[T]:
        """Every value, in the catalog's (name) order, after a sync."""
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
        """Read and derive the skills the next sync derives whose entries hold no body; how many.

        A body that cannot be read (the file is gone or broken since the last refresh) is
        logged, and its skill derived without it until it changes.
        """
        stale = self._stale(self._catalog.snapshot)
        return await self._reads.read(
            [(name, entry) for name, entry in stale if not derived_as_held(entry)]
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

    def _catch_up(self, snapshot: CatalogSnapshot) -> Changes[T]:
        fresh = dict(self._stale(snapshot))
        unread = sum(
            1 for entry in fresh.values() if not derived_as_held(entry) and entry not in self._reads
        )
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
                    self._derive(name, entry, entry.metadata)
                    if derived_as_held(entry)
                    else self._reads.take(entry)
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
        return Changes(added, [slot.value for slot in old.values()])


def _same(before: CatalogEntry, after: CatalogEntry) -> bool:
    """The same skill content: the same entry, or a touched file with equal bytes."""
    return before is after or before.same_content(after)
