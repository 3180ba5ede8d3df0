"""One problem with one skill, however it was found: validating a frontmatter or loading it.

Validation knows neither the skill's served name nor where it lives, so its problems carry
only the code, message and field; a catalog fills in the name and location with
:meth:`SkillProblem.at`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class SkillProblem:
    """One problem with one skill (or with the whole source, when ``name`` is ``None``).

    Attributes:
        name: The name the skill is served under, or its folder's name when it is not
            served; ``None`` when unknown (a bare frontmatter) or for the whole source.
        location: Where the problem is: the SKILL.md path or URL; ``None`` when unknown.
        code: A constant from :mod:`skills_core.codes`.
        message: What is wrong, for people.
        field: The frontmatter key concerned, if any.
    """

    name: str | None
    location: str | None
    code: str
    message: str
    field: str | None = None

    @classmethod
    def found(cls, code: str, message: str, field: str | None = None) -> SkillProblem:
        """A problem found in a frontmatter, before it is known whose it is."""
        return cls(None, None, code, message, field)

    def at(self, name: str | None, location: str) -> SkillProblem:
        """This problem, filed under a skill and its location."""
        return replace(self, name=name, location=location)

    @property
    def subject(self) -> str:
        """What the problem is about, for grouping: the skill's name, else its location."""
        return self.name or self.location or ""

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "name": self.name,
            "location": self.location,
            "code": self.code,
            "message": self.message,
            "field": self.field,
        }
