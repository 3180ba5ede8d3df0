"""One catalog entry per skill: judged once, reused until its SKILL.md's bytes change.

Which skills load: docs/catalog.md, "Which skills load". An entry built from a listing's
frontmatter (:func:`listed_entry`) is checked against its SKILL.md when first used
(:func:`verified`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from typing import Any, NamedTuple

from backends._base import SkillDocument, SkillRef
from backends._errors import LimitExceededError, SkillNotFoundError, StorageError, UnsafePathError
from backends._limits import DEFAULT_LIMITS, Limits
from backends.capabilities import ListedDocument
from skills_core import _codes as codes
from skills_core._errors import EntryMismatchError, SkillParseError
from skills_core._format.fast_path import read_clean_skill
from skills_core._format.models import (
    DEFAULT_FORMAT_LIMITS,
    FormatLimits,
    SkillMetadata,
    SkillProblem,
)
from skills_core._format.parsing import (
    SplitSkillMd,
    body_text,
    frontmatter_json,
    frontmatter_text,
    read_frontmatter,
    split_skill_md,
)
from skills_core._format.validation import EMPTY_BODY, FIELDS, analyze

logger = logging.getLogger("skillfs")

_MAX_REASON_CHARS = 300
_READ_AGAIN = "\x00read-again"
"""The fingerprint of an entry whose read failed: no listing ever gives it."""


class Judging(NamedTuple):
    """How a catalog judges its skills: strictly (as ``skillfs validate``) or not, within limits."""

    strict: bool = False
    limits: Limits = DEFAULT_LIMITS
    format_limits: FormatLimits = DEFAULT_FORMAT_LIMITS

    def split(self, data: bytes, location: str) -> SplitSkillMd:
        """:func:`~skills_core._format.parsing.split_skill_md` within these limits."""
        return split_skill_md(
            data,
            location=location,
            limits=self.format_limits,
            max_skill_md_bytes=self.limits.max_skill_md_bytes,
        )


class CatalogEntry(NamedTuple):
    """What the catalog knows of one skill; ``metadata`` is ``None`` when it is refused.

    Attributes:
        name: The folder name: the skill's storage key (see :attr:`served_name`).
        warnings: Spec violations and advice (only advice for a refused skill).
        digest: The SHA-256 of a SKILL.md not held (see :meth:`without_body`), or listed.
        frontmatter_name: A refused skill's usable frontmatter ``name``, when it has one.
        withheld: The metadata fields :func:`withhold` reset, with the values they had.
        listed: The frontmatter the backend's listing gave, for an entry built from it.
        frontmatter: A loaded skill's frontmatter text when ``raw`` is not held.
    """

    name: str
    fingerprint: str
    location: str
    metadata: SkillMetadata | None
    raw: bytes = b""
    body_start: int = 0
    errors: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()
    digest: bytes = b""
    frontmatter_name: str | None = None
    withheld: tuple[tuple[str, Any], ...] = ()
    listed: Mapping[str, Any] | None = None
    frontmatter: str = ""

    @property
    def loaded(self) -> bool:
        """True when the skill is served."""
        return self.metadata is not None

    @property
    def served_name(self) -> str:
        """The name the skill is known by: its metadata's name once loaded, else its folder."""
        return self.name if self.metadata is None else self.metadata.name

    @property
    def declared_name(self) -> str:
        """The name the skill gives itself (a lenient catalog serves it so), else its folder."""
        if self.metadata is not None:
            return self.metadata.name
        return self.frontmatter_name or self.name

    @property
    def body(self) -> str:
        """The markdown instructions, decoded on demand."""
        return body_text(self.raw, self.body_start) if self.raw else ""

    def same_content(self, other: CatalogEntry) -> bool:
        """True when both hold the same SKILL.md bytes at the same location, judged alike."""
        return (
            self.raw == other.raw
            and self.digest == other.digest
            and self.location == other.location
            and self.metadata == other.metadata
        )

    def holds(self, data: bytes) -> bool:
        """True when ``data`` is the SKILL.md this entry was built from."""
        if self.raw or not self.digest:
            return self.raw == data
        return self.digest == content_digest(data)

    def without_body(self) -> CatalogEntry:
        """This entry without its SKILL.md bytes, remembering their hash and frontmatter."""
        if not self.raw:
            return self
        kept = frontmatter_of(self) if self.loaded else ""
        return self._replace(raw=b"", digest=content_digest(self.raw), frontmatter=kept)


def frontmatter_of(entry: CatalogEntry) -> str:
    """A loaded entry's frontmatter text, as its SKILL.md writes it between the fences."""
    return frontmatter_text(entry.raw, entry.body_start) if entry.raw else entry.frontmatter


def content_digest(data: bytes) -> bytes:
    """The SHA-256 of SKILL.md bytes (the digest MCP and lock files publish, as ``sha256:``)."""
    return hashlib.sha256(data).digest()


def entry_digest(entry: CatalogEntry) -> bytes:
    """The SHA-256 of the SKILL.md ``entry`` was built from (held, or hashed from its bytes)."""
    return content_digest(entry.raw) if entry.raw else entry.digest


def is_verdict(entry: CatalogEntry) -> bool:
    """False for an entry whose read failed (:func:`failed_read_entry`): not worth keeping."""
    return entry.fingerprint != _READ_AGAIN


def judge_document(
    document: SkillDocument, judging: Judging, previous: CatalogEntry | None = None
) -> CatalogEntry:
    """Parse, validate and judge one SKILL.md; reuse ``previous`` if the content is the same.

    Never raises: an unexpected exception refuses this skill alone (``LOAD_FAILED``).
    """
    name, location = document.name, document.location
    try:
        if previous is not None and previous.loaded and previous.holds(document.data):
            return previous._replace(fingerprint=document.fingerprint, location=location)
        if not judging.strict:  # a strict verdict advises on the body's length: the full path
            clean = read_clean_skill(
                document.data,
                folder_name=name,
                limits=judging.format_limits,
                max_skill_md_bytes=judging.limits.max_skill_md_bytes,
            )
            if clean is not None:
                return CatalogEntry(
                    name,
                    document.fingerprint,
                    location,
                    clean.metadata,
                    document.data,
                    clean.body_start,
                )
        return _full_verdict(document, judging)
    except Exception as exc:  # one skill must never fail a refresh
        logger.error("%s: judging the skill failed", location, exc_info=exc)
        reason = f"{type(exc).__name__}: {exc}"
        if len(reason) > _MAX_REASON_CHARS:
            reason = reason[:_MAX_REASON_CHARS] + "..."
        message = f"loading the skill failed unexpectedly ({reason}); refused"
        return _refused(document, SkillProblem(name, location, codes.LOAD_FAILED, message))


def withhold(entry: CatalogEntry, withheld: Mapping[str, str]) -> CatalogEntry:
    """Reset the fields ``withheld`` names (key to reason), with a warning for each one set.

    Fields withheld before and no longer get back the values its SKILL.md gave them.
    """
    metadata = entry.metadata
    if metadata is None or not (withheld or entry.withheld):
        return entry
    if entry.withheld:
        metadata = metadata._replace(**dict(entry.withheld))
    kept = tuple(item for item in entry.warnings if item.code != codes.FIELD_WITHHELD)
    reset: dict[str, Any] = {}
    given: list[tuple[str, Any]] = []
    warnings: list[SkillProblem] = []
    for key, reason in withheld.items():
        spec = FIELDS.get(key)
        if spec is None or getattr(metadata, spec.attr) in (None, (), {}):
            continue
        reset[spec.attr] = SkillMetadata._field_defaults[spec.attr]
        given.append((spec.attr, getattr(metadata, spec.attr)))
        message = f"{key} is ignored: {reason}"
        warnings.append(SkillProblem(metadata.name, entry.location, codes.FIELD_WITHHELD, message))
    if not reset and not entry.withheld:
        return entry
    return entry._replace(
        metadata=metadata._replace(**reset), warnings=(*kept, *warnings), withheld=tuple(given)
    )


def _full_verdict(document: SkillDocument, judging: Judging) -> CatalogEntry:
    """Split, parse and validate, collecting every problem."""
    folder, location, strict = document.name, document.location, judging.strict
    try:
        source = judging.split(document.data, location)
        frontmatter, repairs = read_frontmatter(
            source.frontmatter, location=location, limits=judging.format_limits, strict=strict
        )
    except LimitExceededError as exc:
        return _refused(document, SkillProblem(folder, location, codes.TOO_LARGE, exc.message))
    except SkillParseError as exc:
        return _refused(document, SkillProblem(folder, location, exc.code, exc.message))
    # Counting a body's lines costs more than parsing its frontmatter: only strict advises on it.
    entry = frontmatter_verdict(
        document,
        frontmatter,
        strict=strict,
        body=source.body if strict else None,
        advice=() if strict or not source.body_is_blank else (EMPTY_BODY,),
        repairs=repairs,
    )
    return entry._replace(raw=source.raw, body_start=source.body_start) if entry.loaded else entry


def frontmatter_verdict(
    source: ListedDocument,
    frontmatter: Mapping[str, Any],
    *,
    strict: bool,
    body: str | None = None,
    advice: tuple[SkillProblem, ...] = (),
    repairs: tuple[SkillProblem, ...] = (),
) -> CatalogEntry:
    """Judge a frontmatter mapping: a refused entry, or a loaded one holding no SKILL.md bytes.

    ``body`` is for a strict verdict's advice on its length; ``advice`` (an empty body) and
    ``repairs`` (what a lenient reading repaired) join the warnings.
    """
    folder, location = source.name, source.location
    metadata, report = analyze(frontmatter, folder_name=folder, body=body)
    advice_issues = (*report.warnings, *advice)  # without the body, only advice on fields
    if metadata is None or (strict and report.errors):
        errors = _problems(folder, location, report.errors)
        entry = CatalogEntry(
            folder,
            source.fingerprint,
            location,
            None,
            errors=errors,
            warnings=_problems(folder, location, advice_issues),
        )
        return entry if metadata is None else entry._replace(frontmatter_name=metadata.name)
    warnings = _problems(metadata.name, location, (*repairs, *report.errors, *advice_issues))
    return CatalogEntry(folder, source.fingerprint, location, metadata, warnings=warnings)


def _refused(ref: ListedDocument, problem: SkillProblem) -> CatalogEntry:
    return CatalogEntry(ref.name, ref.fingerprint, ref.location, None, errors=(problem,))


def unreadable_entry(ref: ListedDocument, error: StorageError) -> CatalogEntry:
    """An entry for a skill whose SKILL.md could not be fetched or listed safely."""
    return _refused(ref, problem_from_error(ref.name, ref.location, error))


def failed_read_entry(ref: ListedDocument, error: StorageError) -> CatalogEntry:
    """An entry for a skill whose SKILL.md read failed: its fingerprint matches no listing."""
    return unreadable_entry(ref, error)._replace(fingerprint=_READ_AGAIN)


def problem_from_error(name: str | None, location: str, error: StorageError) -> SkillProblem:
    """Describe a storage error as a problem with the right code."""
    if isinstance(error, LimitExceededError):
        code = codes.TOO_LARGE
    elif isinstance(error, UnsafePathError):
        code = codes.UNSAFE_PATH
    else:
        code = codes.READ_FAILED
    return SkillProblem(name, error.location or location, code, error.message)


def _problems(
    name: str, location: str, found: tuple[SkillProblem, ...]
) -> tuple[SkillProblem, ...]:
    return tuple(problem.at(name, location) for problem in found) if found else ()


_NAMED_FIELDS = 5
"""Most differing fields a refusal names."""
_ABSENT = object()


def listed_entry(ref: SkillRef, *, strict: bool) -> CatalogEntry:
    """The entry of a skill whose ref carries its frontmatter, served under the ref's name."""
    listed = ref.frontmatter
    assert listed is not None
    declared = listed.get("name")
    named = ref._replace(name=declared) if isinstance(declared, str) and declared else ref
    entry = frontmatter_verdict(named, dict(listed), strict=strict)
    digest = bytes.fromhex(ref.digest.removeprefix("sha256:")) if ref.digest else b""
    entry = entry._replace(name=ref.name, listed=listed, digest=digest)
    metadata = entry.metadata
    if metadata is None or metadata.name == ref.name:
        return entry
    message = f"served as {ref.name!r}: its source lists another skill named {metadata.name!r}"
    renamed = SkillProblem(ref.name, ref.location, codes.DUPLICATE_NAME, message)
    return entry._replace(
        metadata=metadata._replace(name=ref.name), warnings=(*entry.warnings, renamed)
    )


def verified(entry: CatalogEntry, document: SkillDocument, judging: Judging) -> CatalogEntry:
    """``entry`` holding ``document``, once its frontmatter is the listed one, as JSON.

    Raises:
        EntryMismatchError: Its frontmatter is not the listed one.
        SkillNotFoundError: The skill changed since the catalog's last refresh.
    """
    listed = entry.listed
    assert listed is not None
    if document.fingerprint != entry.fingerprint:
        raise SkillNotFoundError(
            f"skill {entry.served_name!r} changed since the last refresh: refresh the catalog",
            location=entry.location,
        )
    try:
        source = judging.split(document.data, entry.location)
        frontmatter = frontmatter_json(
            source.frontmatter, location=entry.location, limits=judging.format_limits
        )
    except (SkillParseError, LimitExceededError) as exc:
        raise _mismatch(
            entry, f"its SKILL.md's frontmatter cannot be read ({exc.message})"
        ) from exc
    keys = sorted({*frontmatter, *listed}, key=str)
    differing = [
        key
        for key in keys
        if _as_json(frontmatter.get(key, _ABSENT)) != _as_json(listed.get(key, _ABSENT))
    ]
    if differing:
        named = ", ".join(map(repr, differing[:_NAMED_FIELDS]))
        more = len(differing) - _NAMED_FIELDS
        named += f" and {more} more" if more > 0 else ""
        raise _mismatch(entry, f"its SKILL.md's frontmatter differs from its entry's in {named}")
    return entry._replace(raw=document.data, body_start=source.body_start)


def refused(entry: CatalogEntry, problem: SkillProblem) -> CatalogEntry:
    """A loaded ``entry`` refused for ``problem`` (its lock's, or its listing's)."""
    return entry._replace(
        metadata=None,
        raw=b"",
        errors=(problem,),
        warnings=(),
        frontmatter_name=entry.served_name,
        withheld=(),
    )


def _mismatch(entry: CatalogEntry, why: str) -> EntryMismatchError:
    return EntryMismatchError(
        f"refused: {why} (changed since listed, or tampered with)", location=entry.location
    )


def _as_json(value: Any) -> str | None:
    """A value as canonical JSON text, so ``true`` and ``1`` differ; ``None`` when absent."""
    return None if value is _ABSENT else json.dumps(value, sort_keys=True)
