"""Values derived from each loaded skill of a catalog, rebuilt only for skills that changed.

Selection and search tokenize every skill once; after that, :meth:`DerivedSkills.sync` costs
one identity check per skill when the catalog refreshed (a few milliseconds for 10,000
skills) and nothing at all when it did not. A refresh that changes 1 skill of 10,000
re-derives that one skill. A sync that derives runs with the cyclic garbage collector paused:
the millions of objects 10,000 large skills give hold no cycles, yet set off collections that
examine them (0.2 s of CPU time for 10,000 real-sized skills).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, NamedTuple, TypeVar

from skills_core.catalog.cache_codec import collector_paused
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.snapshot import CatalogSnapshot
from skills_core.format.models import SkillMetadata

T = TypeVar("T")

Derive = Callable[[str, CatalogEntry, SkillMetadata], T]
"""Builds the value of one loaded skill from its name in the catalog, its entry and metadata."""


class Changes(NamedTuple, Generic[T]):
    """What a sync replaced: a changed skill's old value is removed and its new one added."""

    added: Sequence[T]
    removed: Sequence[T]


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
        """Catch up with the catalog's current snapshot; what changed since the last sync."""
        with self._lock:
            snapshot = self._catalog.snapshot
            if snapshot is self._snapshot:
                return Changes((), ())
            with collector_paused():
                return self._catch_up(snapshot)

    def _catch_up(self, snapshot: CatalogSnapshot) -> Changes[T]:
        old, slots = self._slots, {}
        added: list[T] = []
        for name, entry in snapshot.loaded.items():
            if entry.metadata is None:
                continue
            slot = old.pop(name, None)
            if slot is None or not _same(slot.entry, entry):
                if slot is not None:
                    old[name] = slot  # still to be reported as removed
                slot = _Slot(entry, self._derive(name, entry, entry.metadata))
                added.append(slot.value)
                self.derived += 1
            slots[name] = slot
        self._slots, self._snapshot = slots, snapshot
        return Changes(added, [slot.value for slot in old.values()])


def _same(before: CatalogEntry, after: CatalogEntry) -> bool:
    """The same skill content: the same entry, or a touched file with equal bytes."""
    return before is after or before.same_content(after)
