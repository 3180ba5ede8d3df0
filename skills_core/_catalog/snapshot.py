"""Immutable snapshots of a catalog, and the report of what a refresh changed.

A first load builds a snapshot from every entry; later refreshes place only the changed entries
and the other claimants of their names (:meth:`CatalogSnapshot.updated`). Of two skills claiming
one name, the first by folder is served, the others refused with ``DUPLICATE_NAME``.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict, TypeVar

from backends._base import SkillRef
from backends._errors import SkillfsError, StorageError
from backends.capabilities import ListedDocument
from skills_core import _codes as codes
from skills_core._catalog.entries import CatalogEntry
from skills_core._format.models import SkillMetadata, SkillProblem

Shadowing = tuple[tuple[str, str, tuple[str, ...]], ...]
"""``(name, winner location, shadowed locations)`` for every name a composite hides."""

Changes = Mapping[str, CatalogEntry | None]
"""Entries by folder: new or changed ones, and ``None`` for folders gone."""

_metadata = operator.attrgetter("metadata")
_V = TypeVar("_V")


class CatalogSnapshot(NamedTuple):
    """Entries by folder and by name, with the loaded skills and the problems precomputed.

    Attributes:
        entries: Every skill listed, loaded or refused, by folder, sorted.
        loaded: The entries served, by the name they are served under, sorted.
        placed: How many entries making this snapshot placed (all, or the changed ones and
            their names' other claimants).
        claims: The folders claiming each contested name, sorted (the first is served).
        problems: Each folder's problems (its errors, or its refusal as a duplicate).
        advice: Each served name's warnings.
    """

    entries: Mapping[str, CatalogEntry]
    loaded: Mapping[str, CatalogEntry]
    skills: tuple[SkillMetadata, ...]
    names: tuple[str, ...]
    errors: tuple[SkillProblem, ...]
    warnings: tuple[SkillProblem, ...]
    shadowing: Shadowing
    refresh_errors: tuple[SkillProblem, ...] = ()
    placed: int = 0
    claims: Mapping[str, tuple[str, ...]] = {}
    problems: Mapping[str, tuple[SkillProblem, ...]] = {}
    advice: Mapping[str, tuple[SkillProblem, ...]] = {}

    @classmethod
    def build(
        cls,
        entries: Mapping[str, CatalogEntry],
        *,
        refresh_errors: Sequence[SkillProblem] = (),
        shadowing: Shadowing = (),
    ) -> CatalogSnapshot:
        """Freeze ``entries`` and precompute the views readers use."""
        ordered = _by_key(entries)
        served: dict[str, CatalogEntry] = {}
        claimants: dict[str, list[str]] = {}
        problems: dict[str, tuple[SkillProblem, ...]] = {}
        for folder, entry in ordered.items():
            if entry.errors:
                problems[folder] = entry.errors
            if entry.metadata is None:
                continue
            name = entry.metadata.name
            winner = served.setdefault(name, entry)
            if winner is not entry:
                claimants.setdefault(name, [winner.name]).append(folder)
                problems[folder] = (*entry.errors, _duplicate(entry, winner))
        loaded = _by_key(served)
        advice = {name: entry.warnings for name, entry in loaded.items() if entry.warnings}
        claims = {name: tuple(folders) for name, folders in claimants.items()}
        state = _State(ordered, loaded, claims, problems, advice)
        return state.snapshot(tuple(refresh_errors), shadowing, placed=len(ordered))

    def updated(
        self,
        changes: Changes,
        *,
        refresh_errors: Sequence[SkillProblem] = (),
        shadowing: Shadowing = (),
    ) -> CatalogSnapshot:
        """A new snapshot with ``changes`` applied, placing only the entries they concern."""
        state = _State(
            dict(self.entries),
            dict(self.loaded),
            dict(self.claims),
            dict(self.problems),
            dict(self.advice),
        )
        placed = state.settle(state.apply(changes), changes)
        return state.snapshot(tuple(refresh_errors), shadowing, placed=len(changes) + placed)

    @property
    def unavailable(self) -> tuple[SkillProblem, ...]:
        """The sources the refresh went without (a composite's failed members), with why."""
        return tuple(problem for problem in self.refresh_errors if problem.name is None)


@dataclass
class _State:
    """The mutable copies an update works on, then freezes into a snapshot."""

    entries: dict[str, CatalogEntry]
    loaded: dict[str, CatalogEntry]
    claims: dict[str, tuple[str, ...]]
    problems: dict[str, tuple[SkillProblem, ...]]
    advice: dict[str, tuple[SkillProblem, ...]]
    new_keys: bool = False

    def apply(self, changes: Changes) -> dict[str, set[str]]:
        """Write the changed entries; the folders now claiming each name they concern."""
        claimants: dict[str, set[str]] = {}

        def claiming(name: str) -> set[str]:
            found = claimants.get(name)
            if found is None:
                served = self.loaded.get(name)
                found = set(self.claims.get(name) or ((served.name,) if served else ()))
                claimants[name] = found
            return found

        for folder, entry in changes.items():
            old = self.entries.get(folder)
            if old is not None and old.metadata is not None:
                claiming(old.metadata.name).discard(folder)
            self.problems.pop(folder, None)
            if entry is None:
                self.entries.pop(folder, None)
                continue
            self.new_keys |= old is None
            self.entries[folder] = entry
            if entry.errors:
                self.problems[folder] = entry.errors
            if entry.metadata is not None:
                claiming(entry.metadata.name).add(folder)
        return claimants

    def settle(self, claimants: Mapping[str, set[str]], changes: Changes) -> int:
        """Serve each name's first claimant by folder, refuse the others; how many it placed."""
        placed = 0
        for name, folders in claimants.items():
            ordered = sorted(folders)
            placed += sum(1 for folder in ordered if folder not in changes)
            if len(ordered) > 1:
                self.claims[name] = tuple(ordered)
            else:
                self.claims.pop(name, None)
            if not ordered:
                self.loaded.pop(name, None)
                self.advice.pop(name, None)
                continue
            winner = self.entries[ordered[0]]
            self.new_keys |= name not in self.loaded
            self.loaded[name] = winner
            _put(self.advice, name, winner.warnings)
            _put(self.problems, winner.name, winner.errors)
            for folder in ordered[1:]:
                loser = self.entries[folder]
                self.problems[folder] = (*loser.errors, _duplicate(loser, winner))
        return placed

    def snapshot(
        self, refresh_errors: tuple[SkillProblem, ...], shadowing: Shadowing, *, placed: int
    ) -> CatalogSnapshot:
        """Freeze the state (re-sorting the mappings only when new keys came in)."""
        entries, loaded = self.entries, self.loaded
        if self.new_keys:
            entries, loaded = _by_key(entries), _by_key(loaded)
        problems = _by_key(self.problems)
        advice = _by_key(self.advice)
        errors = (*itertools.chain.from_iterable(problems.values()), *refresh_errors)
        shadowed = (
            SkillProblem(name, hidden, codes.SHADOWED, f"skill {name!r} is shadowed by {winner}")
            for name, winner, hidden_locations in shadowing
            for hidden in hidden_locations
        )
        warnings = (*itertools.chain.from_iterable(advice.values()), *shadowed)
        return CatalogSnapshot(
            entries,
            loaded,
            tuple(map(_metadata, loaded.values())),
            tuple(loaded),
            errors,
            warnings,
            shadowing,
            refresh_errors,
            placed,
            _by_key(self.claims),
            problems,
            advice,
        )


def _by_key(mapping: Mapping[str, _V]) -> dict[str, _V]:
    """A copy of ``mapping`` in key order (sorting the keys alone: pairs wake the collector)."""
    keys = sorted(mapping)
    if keys == list(mapping):  # in order already (a snapshot's, or the cache's): copied in C
        return dict(mapping)
    return {key: mapping[key] for key in keys}


def _put(
    mapping: dict[str, tuple[SkillProblem, ...]], key: str, value: tuple[SkillProblem, ...]
) -> None:
    """Set ``mapping[key]`` to a non-empty ``value``, or drop the key."""
    if value:
        mapping[key] = value
    else:
        mapping.pop(key, None)


def _duplicate(entry: CatalogEntry, winner: CatalogEntry) -> SkillProblem:
    """The refusal of ``entry``, whose name ``winner`` (first by folder) already serves."""
    message = (
        f"skill name {entry.served_name!r} is already served by {winner.location}; "
        "this one is not served (rename one of them)"
    )
    return SkillProblem(entry.name, entry.location, codes.DUPLICATE_NAME, message)


def shadowing_of(listing: Sequence[ListedDocument]) -> Shadowing:
    """What a listing shadows, in a form snapshots can compare."""
    return tuple(
        (ref.name, ref.location, ref.shadows)
        for ref in listing
        if isinstance(ref, SkillRef) and ref.shadows
    )


EMPTY_SNAPSHOT = CatalogSnapshot.build({})


@dataclass(frozen=True, slots=True)
class ReloadReport:
    """What a refresh changed: docs/catalog.md, "What refresh() does" and "Watching"."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()
    fetched: int = 0
    bytes_read: int = field(default=0, compare=False)  # costs, not verdicts
    reads: int = field(default=0, compare=False)
    failure: SkillProblem | None = None
    cause: Exception | None = field(default=None, compare=False, repr=False)

    def raise_for_failure(self) -> None:
        """Raise the failed listing's own error.

        Raises:
            SkillfsError: The listing's error, or a :class:`StorageError` wrapping a foreign one.
        """
        if self.failure is None:
            return
        if isinstance(self.cause, SkillfsError):
            raise self.cause
        message = f"cannot list skills: {self.cause}" if self.cause else self.failure.message
        raise StorageError(message, location=self.failure.location) from self.cause

    @property
    def ok(self) -> bool:
        """True when the listing succeeded (individual skills may still have errors)."""
        return self.failure is None

    @property
    def has_changes(self) -> bool:
        """True when any skill was added, changed or removed."""
        return bool(self.added or self.changed or self.removed)

    def telemetry(self) -> dict[str, int]:
        """Span attributes: ``skillfs.refresh.<field>`` counts and totals."""
        counts = {
            field: len(getattr(self, field))
            for field in ("added", "changed", "removed", "unchanged", "errors", "warnings")
        }
        totals = {"fetched": self.fetched, "bytes": self.bytes_read, "reads": self.reads}
        return {f"skillfs.refresh.{key}": value for key, value in (counts | totals).items()}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "ok": self.ok,
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
            "unchanged": len(self.unchanged),
            "fetched": self.fetched,
            "bytes_read": self.bytes_read,
            "reads": self.reads,
            "errors": [problem.to_dict() for problem in self.errors],
            "warnings": [problem.to_dict() for problem in self.warnings],
            "failure": self.failure.to_dict() if self.failure else None,
        }


class Reads(TypedDict):
    """What one refresh read: the report's ``fetched``, ``bytes_read`` and ``reads``."""

    fetched: int
    bytes_read: int
    reads: int


def compare(
    old: CatalogSnapshot, new: CatalogSnapshot, changes: Changes, reads: Reads
) -> ReloadReport:
    """Name what a refresh changed, among the names ``changes`` could have moved."""
    names = {
        item.metadata.name
        for folder, entry in changes.items()
        for item in (old.entries.get(folder), entry)
        if item is not None and item.metadata is not None
    }
    before, after = old.loaded, new.loaded
    added = sorted(name for name in names if name in after and name not in before)
    removed = sorted(name for name in names if name in before and name not in after)
    changed = sorted(
        name
        for name in names
        if name in before and name in after and _differs(before[name], after[name])
    )
    moved = {*added, *changed}
    return ReloadReport(
        added=tuple(added),
        changed=tuple(changed),
        removed=tuple(removed),
        unchanged=tuple(itertools.filterfalse(moved.__contains__, new.names)),
        errors=new.errors,
        warnings=new.warnings,
        **reads,
    )


def _differs(before: CatalogEntry, after: CatalogEntry) -> bool:
    return before is not after and not before.same_content(after)
