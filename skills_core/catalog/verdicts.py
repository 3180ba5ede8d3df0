"""Every problem of every skill in a catalog, filed under its skill: the spec's verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from skills_core.catalog.catalog import SkillCatalog
from skills_core.format.models import SkillProblem


@dataclass
class Verdict:
    """Every problem of one skill.

    Attributes:
        name: The name the skill gives itself, which ``list``, ``show`` and ``prompt`` use.
        folder: The skill's folder (its storage key).
    """

    name: str
    folder: str
    location: str
    errors: list[SkillProblem] = field(default_factory=list)
    warnings: list[SkillProblem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when the skill has no error."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "name": self.name,
            "folder": self.folder,
            "location": self.location,
            "valid": self.valid,
            "errors": [problem.to_dict() for problem in self.errors],
            "warnings": [problem.to_dict() for problem in self.warnings],
        }


def verdicts_of(catalog: SkillCatalog) -> list[Verdict]:
    """One verdict per listed skill, in name order, with every problem found.

    Problems are filed by folder, so two folders claiming one name keep their own verdicts.

    A skill's own problems come from its catalog entry (so a refused skill keeps its advice);
    problems the catalog adds (failed re-reads, shadowed names) are filed under their skill.
    """
    entries = catalog.snapshot.entries
    verdicts = {
        folder: Verdict(
            entry.declared_name, folder, entry.location, list(entry.errors), list(entry.warnings)
        )
        for folder, entry in entries.items()
    }
    own = {problem for entry in entries.values() for problem in (*entry.errors, *entry.warnings)}

    def verdict_for(problem: SkillProblem) -> Verdict:
        folder = problem.subject
        return verdicts.setdefault(folder, Verdict(folder, folder, problem.location or folder))

    for problem in catalog.errors:
        if problem not in own:
            verdict_for(problem).errors.append(problem)
    for problem in catalog.warnings:
        if problem not in own:
            verdict_for(problem).warnings.append(problem)
    return sorted(verdicts.values(), key=lambda verdict: (verdict.name, verdict.folder))
