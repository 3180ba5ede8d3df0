"""Problems with individual skills, and what one catalog refresh did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backends.errors import SkillfsError, StorageError


@dataclass(frozen=True, slots=True)
class SkillProblem:
    """One problem with one skill (or with the whole source, when ``name`` is ``None``).

    Attributes:
        name: The name the skill is served under, or its folder's name when it is not
            served.
        location: Where the problem is: the SKILL.md path or URL.
        code: A constant from :mod:`skills_core.codes`.
        message: What is wrong, for people.
    """

    name: str | None
    location: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "name": self.name,
            "location": self.location,
            "code": self.code,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class ReloadReport:
    """What a refresh changed. Name sets cover loaded skills only; refused ones are in errors.

    Attributes:
        added: Skills that are loaded now and were not before.
        changed: Loaded before and after, with different SKILL.md content.
        removed: Loaded before, gone or refused now.
        unchanged: Loaded before and after with the same content.
        errors: Every skill refused in the current catalog, plus failures of this refresh.
        warnings: Every warning about the loaded skills.
        fetched: How many SKILL.md files this refresh read from the backend.
        failure: Why the listing failed, when it did; the catalog then kept its last snapshot.
        cause: The exception that failed the listing.
    """

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()
    fetched: int = 0
    failure: SkillProblem | None = None
    cause: Exception | None = field(default=None, compare=False, repr=False)

    def raise_for_failure(self) -> None:
        """Raise the failed listing's own error, which names its cause in one line.

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

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "ok": self.ok,
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
            "unchanged": len(self.unchanged),
            "fetched": self.fetched,
            "errors": [problem.to_dict() for problem in self.errors],
            "warnings": [problem.to_dict() for problem in self.warnings],
            "failure": self.failure.to_dict() if self.failure else None,
        }
