"""An immutable view of a catalog at one moment; a refresh swaps in a new one atomically."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from backends.base import SkillRef
from skills_core import codes
from skills_core.entries import CatalogEntry
from skills_core.models import SkillMetadata
from skills_core.report import SkillProblem


@dataclass(frozen=True, slots=True)
class CatalogSnapshot:
    """Entries by name, with the loaded skills and the problems precomputed.

    Attributes:
        entries: Every skill the backend listed, loaded or refused.
        skills: Metadata of the loaded skills, sorted by name.
        errors: Why each refused skill is refused, plus failures of the last refresh.
        warnings: Warnings about loaded skills, plus shadowed names.
    """

    entries: Mapping[str, CatalogEntry]
    skills: tuple[SkillMetadata, ...]
    errors: tuple[SkillProblem, ...]
    warnings: tuple[SkillProblem, ...]

    @classmethod
    def build(
        cls,
        entries: Mapping[str, CatalogEntry],
        *,
        refresh_errors: Sequence[SkillProblem] = (),
        refs: Sequence[SkillRef] = (),
    ) -> CatalogSnapshot:
        """Freeze ``entries`` and precompute the views readers use."""
        ordered = dict(sorted(entries.items()))
        skills = tuple(entry.metadata for entry in ordered.values() if entry.metadata is not None)
        errors = [problem for entry in ordered.values() for problem in entry.errors]
        warnings = [
            problem for entry in ordered.values() if entry.loaded for problem in entry.warnings
        ]
        warnings += _shadow_warnings(refs)
        return cls(MappingProxyType(ordered), skills, (*errors, *refresh_errors), tuple(warnings))


def _shadow_warnings(refs: Sequence[SkillRef]) -> list[SkillProblem]:
    return [
        SkillProblem(
            ref.name, hidden, codes.SHADOWED, f"skill {ref.name!r} is shadowed by {ref.location}"
        )
        for ref in refs
        for hidden in ref.shadows
    ]


EMPTY_SNAPSHOT = CatalogSnapshot.build({})
