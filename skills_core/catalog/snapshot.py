"""An immutable view of a catalog at one moment; a refresh swaps in a new one atomically."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from backends.base import SkillRef
from backends.capabilities import ListedDocument
from skills_core import codes
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.report import SkillProblem
from skills_core.format.models import SkillMetadata

Shadowing = tuple[tuple[str, str, tuple[str, ...]], ...]
"""``(name, winner location, shadowed locations)`` for every name a composite hides."""


class CatalogSnapshot(NamedTuple):
    """Entries by name, with the loaded skills and the problems precomputed.

    Attributes:
        entries: Every skill the backend listed, loaded or refused, sorted by name.
        skills: Metadata of the loaded skills, sorted by name.
        names: Names of the loaded skills, sorted.
        errors: Why each refused skill is refused, plus failures of the last refresh.
        warnings: Warnings about loaded skills, plus shadowed names.
        shadowing: What the backend's listing shadowed.
    """

    entries: Mapping[str, CatalogEntry]
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
        skills = tuple(entry.metadata for entry in ordered.values() if entry.metadata is not None)
        errors = [problem for entry in ordered.values() for problem in entry.errors]
        warnings = [
            problem for entry in ordered.values() if entry.loaded for problem in entry.warnings
        ]
        warnings += [
            SkillProblem(name, hidden, codes.SHADOWED, f"skill {name!r} is shadowed by {winner}")
            for name, winner, hidden_locations in shadowing
            for hidden in hidden_locations
        ]
        return cls(
            ordered,
            skills,
            tuple(meta.name for meta in skills),
            (*errors, *refresh_errors),
            tuple(warnings),
            shadowing,
        )


def shadowing_of(listing: Sequence[ListedDocument]) -> Shadowing:
    """What a listing shadows, in a form snapshots can compare."""
    return tuple(
        (ref.name, ref.location, ref.shadows)
        for ref in listing
        if isinstance(ref, SkillRef) and ref.shadows
    )


EMPTY_SNAPSHOT = CatalogSnapshot.build({})
