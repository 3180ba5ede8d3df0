"""One catalog entry per skill: parsed and judged once, reused until its fingerprint changes.

Which skills load: one whose identity is broken (no readable frontmatter, a missing or invalid
``name``, a ``name`` unlike its folder, no ``description``) or that breaks a limit is refused;
other spec violations load with warnings attached, unless the catalog is strict.

A SKILL.md whose fingerprint changed but whose bytes did not (a touched file, an identical
upload) keeps its entry: the new bytes are compared with the ones held. That costs nothing on a
cold load, where hashing every file (SHA-256 runs at about 300 MB/s without SHA extensions) would
cost more than reading it. The body stays bytes until a reader asks for it.
"""

from __future__ import annotations

from typing import NamedTuple

from backends.base import SkillDocument
from backends.capabilities import ListedDocument
from backends.errors import LimitExceededError, StorageError, UnsafePathError
from backends.limits import Limits
from skills_core import codes
from skills_core.catalog.report import SkillProblem
from skills_core.errors import SkillParseError
from skills_core.format.clean_skill import read_clean_skill
from skills_core.format.models import SkillMetadata
from skills_core.format.parsing import body_text, parse_frontmatter, split_skill_md
from skills_core.format.validation import EMPTY_BODY, Issue, analyze


class CatalogEntry(NamedTuple):
    """What the catalog knows of one skill.

    Attributes:
        name: The folder name.
        fingerprint: The backend's fingerprint this entry was built from.
        location: Where SKILL.md lives.
        metadata: The typed frontmatter; ``None`` when the skill is refused.
        raw: The SKILL.md as read (for loaded skills).
        body_start: Where the body begins in ``raw``.
        errors: Why the skill is refused (empty when it is loaded).
        warnings: Spec violations and advice for a loaded skill; only advice for a refused one
            (kept on the entry, so a full verdict can show it; the catalog's warnings
            cover loaded skills).
    """

    name: str
    fingerprint: str
    location: str
    metadata: SkillMetadata | None
    raw: bytes = b""
    body_start: int = 0
    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()

    @property
    def loaded(self) -> bool:
        """True when the skill is served."""
        return self.metadata is not None

    @property
    def body(self) -> str:
        """The markdown instructions, decoded on demand."""
        return body_text(self.raw, self.body_start) if self.raw else ""

    def same_content(self, other: CatalogEntry) -> bool:
        """True when both entries hold the same SKILL.md bytes at the same location."""
        return self.raw == other.raw and self.location == other.location


def load_document(
    document: SkillDocument,
    *,
    limits: Limits,
    strict: bool,
    previous: CatalogEntry | None = None,
) -> CatalogEntry:
    """Parse, validate and judge one SKILL.md; reuse ``previous`` if the content is the same."""
    name, location = document.name, document.location
    if previous is not None and previous.loaded and previous.raw == document.data:
        return previous._replace(fingerprint=document.fingerprint, location=location)
    if not strict:  # a strict verdict also advises on the body's length: the full path gives it
        clean = read_clean_skill(document.data, folder_name=name, limits=limits)
        if clean is not None:
            return CatalogEntry(
                name,
                document.fingerprint,
                location,
                clean.metadata,
                document.data,
                clean.body_start,
            )
    return _full_verdict(document, limits=limits, strict=strict)


def _full_verdict(document: SkillDocument, *, limits: Limits, strict: bool) -> CatalogEntry:
    """Split, parse and validate, collecting every problem."""
    name, location = document.name, document.location
    try:
        source = split_skill_md(document.data, location=location, limits=limits)
        frontmatter = parse_frontmatter(source.frontmatter, location=location, limits=limits)
    except LimitExceededError as exc:
        return _refused(document, (SkillProblem(name, location, codes.TOO_LARGE, exc.message),))
    except SkillParseError as exc:
        return _refused(document, (SkillProblem(name, location, exc.code, exc.message),))
    # Counting a body's lines costs more than parsing its frontmatter: only a strict catalog
    # (a full verdict, as `skillfs validate` gives) advises on length; emptiness is cheap.
    metadata, report = analyze(frontmatter, folder_name=name, body=source.body if strict else None)
    advice_issues = report.warnings if strict else (EMPTY_BODY,) if source.body_is_blank else ()
    errors = _problems(name, location, report.errors)
    advice = _problems(name, location, advice_issues)
    if metadata is None or (strict and errors):
        return _refused(document, errors, advice)
    warnings = errors + advice
    return CatalogEntry(
        name, document.fingerprint, location, metadata, source.raw, source.body_start, (), warnings
    )


def _refused(
    document: SkillDocument,
    errors: tuple[SkillProblem, ...],
    advice: tuple[SkillProblem, ...] = (),
) -> CatalogEntry:
    return CatalogEntry(
        document.name, document.fingerprint, document.location, None, errors=errors, warnings=advice
    )


def unreadable_entry(ref: ListedDocument, error: StorageError) -> CatalogEntry:
    """An entry for a skill whose SKILL.md could not be fetched or listed safely."""
    problem = problem_from_error(ref.name, ref.location, error)
    return CatalogEntry(ref.name, ref.fingerprint, ref.location, None, errors=(problem,))


def problem_from_error(name: str | None, location: str, error: StorageError) -> SkillProblem:
    """Describe a storage error as a problem with the right code."""
    if isinstance(error, LimitExceededError):
        code = codes.TOO_LARGE
    elif isinstance(error, UnsafePathError):
        code = codes.UNSAFE_PATH
    else:
        code = codes.READ_FAILED
    return SkillProblem(name, error.location or location, code, error.message)


def _problems(name: str, location: str, issues: tuple[Issue, ...]) -> tuple[SkillProblem, ...]:
    if not issues:
        return ()
    return tuple(SkillProblem(name, location, issue.code, issue.message) for issue in issues)
