"""What one catalog refresh did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from backends.errors import SkillfsError, StorageError
from skills_core.format.models import SkillProblem


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
        bytes_read: How many bytes of SKILL.md those were.
        reads: Backend reads made: the listing, plus one per SKILL.md read after it. Not
            network requests: a backend may serve a read from what its listing fetched.
        failure: Why the listing failed, when it did; the catalog then kept its last snapshot.
            In a watch, also why its change events stopped (``WATCH_INTERRUPTED``), on the
            report of the refresh that followed.
        cause: The exception that failed the listing (or stopped the events).
    """

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()
    fetched: int = 0
    bytes_read: int = field(default=0, compare=False)  # costs, not verdicts: a one-pass
    reads: int = field(default=0, compare=False)  # first load makes fewer reads
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
