"""An immutable view of a catalog at one moment; a refresh swaps in a new one atomically."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from backends.base import SkillRef
from backends.capabilities import ListedDocument
from skills_core import codes
from skills_core.catalog.entries import CatalogEntry
from skills_core.format.models import SkillMetadata
from skills_core.format.problems import SkillProblem

Shadowing = tuple[tuple[str, str, tuple[str, ...]], ...]
"""``(name, winner location, shadowed locations)`` for every name a composite hides."""


class CatalogSnapshot(NamedTuple):
    """Entries by folder and by name, with the loaded skills and the problems precomputed.

    Attributes:
        entries: Every skill the backend listed, loaded or refused, by folder (its storage
            key), sorted.
        loaded: The entries served, by the name they are served under, sorted. When two
            skills claim one name, the first by folder is served and the other refused.
        skills: Metadata of the loaded skills, sorted by name.
        names: Names of the loaded skills, sorted.
        errors: Why each refused skill is refused, plus failures of the last refresh.
        warnings: Warnings about loaded skills, plus shadowed names.
        shadowing: What the backend's listing shadowed.
    """

    entries: Mapping[str, CatalogEntry]
    loaded: Mapping[str, CatalogEntry]
    skills: tuple[SkillMetadata, ...]
    names: tuple[str, ...]
    errors: tuple[SkillProblem, ...]
    warnings: tuple[SkillProblem, ...]
    shadowing: Shadowing

    @classmethod
    def build(
        cls,
        entries: Mapping[str, CatalogEntry],
        *,
        refresh_errors: Sequence[SkillProblem] = (),
        shadowing: Shadowing = (),
    ) -> CatalogSnapshot:
        """Freeze ``entries`` and precompute the views readers use."""
        ordered = dict(sorted(entries.items()))
        served: dict[str, CatalogEntry] = {}
        errors: list[SkillProblem] = []
        for entry in ordered.values():
            errors += entry.errors
            if entry.metadata is None:
                continue
            winner = served.setdefault(entry.metadata.name, entry)
            if winner is not entry:
                errors.append(_duplicate(entry, winner))
        loaded = dict(sorted(served.items()))
        warnings = [problem for entry in loaded.values() for problem in entry.warnings]
        warnings += [
            SkillProblem(name, hidden, codes.SHADOWED, f"skill {name!r} is shadowed by {winner}")
            for name, winner, hidden_locations in shadowing
            for hidden in hidden_locations
        ]
        skills = tuple(entry.metadata for entry in loaded.values() if entry.metadata is not None)
        return cls(
            ordered,
            loaded,
            skills,
            tuple(loaded),
            (*errors, *refresh_errors),
            tuple(warnings),
            shadowing,
        )


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
