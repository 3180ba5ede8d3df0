"""One catalog entry per skill: parsed and judged once, reused until its fingerprint changes.

Which skills load: one whose identity is broken (no readable frontmatter, a missing or invalid
``name``, a ``name`` unlike its folder, no ``description``) or that breaks a limit is refused;
other spec violations load with warnings attached, unless the catalog is strict.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from backends.base import SkillDocument, SkillRef
from backends.errors import LimitExceededError, StorageError, UnsafePathError
from backends.limits import Limits
from skills_core import codes
from skills_core.errors import SkillParseError
from skills_core.models import SkillMetadata
from skills_core.parsing import parse_skill_md
from skills_core.report import SkillProblem
from skills_core.validation import Issue, analyze


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """What the catalog knows of one skill.

    Attributes:
        name: The folder name.
        fingerprint: The backend's fingerprint this entry was built from.
        digest: SHA-256 of SKILL.md, or ``None`` when it was never read.
        location: Where SKILL.md lives.
        metadata: The typed frontmatter; ``None`` when the skill is refused.
        body: The markdown instructions.
        errors: Why the skill is refused (empty when it is loaded).
        warnings: Spec violations and advice for a loaded skill; only advice for a refused one
            (kept on the entry, so a full verdict can show it; the catalog's warnings
            cover loaded skills).
    """

    name: str
    fingerprint: str
    digest: bytes | None
    location: str
    metadata: SkillMetadata | None
    body: str = ""
    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()

    @property
    def loaded(self) -> bool:
        """True when the skill is served."""
        return self.metadata is not None


def digest_of(data: bytes) -> bytes:
    """The content hash that decides whether a touched SKILL.md really changed."""
    return hashlib.sha256(data).digest()


def load_document(
    document: SkillDocument, *, limits: Limits, strict: bool, digest: bytes | None = None
) -> CatalogEntry:
    """Parse, validate and judge one SKILL.md (``digest`` when the caller already has it)."""
    name, location = document.name, document.location
    digest = digest or digest_of(document.data)

    def refused(*problems: SkillProblem, advice: tuple[SkillProblem, ...] = ()) -> CatalogEntry:
        return CatalogEntry(
            name, document.fingerprint, digest, location, None, errors=problems, warnings=advice
        )

    try:
        parsed = parse_skill_md(document.data, location=location, limits=limits)
    except LimitExceededError as exc:
        return refused(SkillProblem(name, location, codes.TOO_LARGE, exc.message))
    except SkillParseError as exc:
        return refused(SkillProblem(name, location, exc.code, exc.message))
    analysis = analyze(parsed.frontmatter, folder_name=name, body=parsed.body)
    report = analysis.report
    errors = tuple(_problem(name, location, issue) for issue in report.errors)
    advice = tuple(_problem(name, location, issue) for issue in report.warnings)
    if analysis.metadata is None or (strict and errors):
        return refused(*errors, advice=advice)
    warnings = errors + advice
    return CatalogEntry(
        name,
        document.fingerprint,
        digest,
        location,
        analysis.metadata,
        parsed.body,
        warnings=warnings,
    )


def unreadable_entry(ref: SkillRef, error: StorageError | str) -> CatalogEntry:
    """An entry for a skill whose SKILL.md could not be fetched or listed safely."""
    if isinstance(error, str):
        problem = SkillProblem(ref.name, ref.location, codes.READ_FAILED, error)
    else:
        problem = problem_from_error(ref.name, ref.location, error)
    return CatalogEntry(ref.name, ref.fingerprint, None, ref.location, None, errors=(problem,))


def problem_from_error(name: str | None, location: str, error: StorageError) -> SkillProblem:
    """Describe a storage error as a problem with the right code."""
    if isinstance(error, LimitExceededError):
        code = codes.TOO_LARGE
    elif isinstance(error, UnsafePathError):
        code = codes.UNSAFE_PATH
    else:
        code = codes.READ_FAILED
    return SkillProblem(name, error.location or location, code, error.message)


def _problem(name: str, location: str, issue: Issue) -> SkillProblem:
    return SkillProblem(name, location, issue.code, issue.message)
