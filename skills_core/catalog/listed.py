"""Entries known from a listing: built from the frontmatter it lists, verified when first used.

A source whose listing carries each skill's whole frontmatter (an MCP server's ``skills/list``,
:attr:`backends.base.SkillRef.frontmatter`) gives the catalog its entries without a read:
:func:`listed_entry` judges the listed frontmatter as a SKILL.md's is judged (the same rules,
strictness and refusals) and the entry keeps it. The SKILL.md is fetched when the skill is
used (loaded, one of its files read, a script run, its body injected) and checked before
anything of it is served: the backend checks its bytes against the digest and size it listed,
:func:`verified` its frontmatter against the listed one, field by field. On any difference
the skill is refused with ``ENTRY_MISMATCH`` (:class:`~skills_core.errors.EntryMismatchError`)
and none of its other files is read. Search ranks such skills by their metadata alone,
fetching no body.

Values are compared as the listing carries them, in JSON: the file's frontmatter is read as
:func:`~skills_core.format.parsing.frontmatter_json` reads it (YAML 1.2, as the
extension's servers publish it), and each field must be the listed one exactly (``true`` is
not ``1``, nor ``"yes"``).

A listed skill is served under the name its ref gives: a backend that lists two skills of one
name (``skill://a/pdf`` and ``skill://b/pdf``) names the second otherwise (``b.pdf``), and the
catalog serves it so, with a warning, instead of refusing one as a duplicate.
"""

from __future__ import annotations

import json
from typing import Any

from backends.base import SkillDocument, SkillRef
from backends.errors import LimitExceededError, SkillNotFoundError
from backends.limits import Limits
from skills_core import codes
from skills_core.catalog.entries import CatalogEntry, frontmatter_verdict
from skills_core.errors import EntryMismatchError, SkillParseError
from skills_core.format.models import FormatLimits, SkillProblem
from skills_core.format.parsing import frontmatter_json, split_skill_md

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


def verified(
    entry: CatalogEntry,
    document: SkillDocument,
    *,
    limits: Limits,
    format_limits: FormatLimits,
) -> CatalogEntry:
    """``entry`` holding ``document``, its SKILL.md, once its frontmatter is the listed one.

    The backend checked the bytes against the digest and size it listed (a mismatch there is
    a :class:`~backends.errors.VerificationError`, which the catalog reports the same way).

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
        source = split_skill_md(
            document.data,
            location=entry.location,
            limits=format_limits,
            max_skill_md_bytes=limits.max_skill_md_bytes,
        )
        frontmatter = frontmatter_json(
            source.frontmatter, location=entry.location, limits=format_limits
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


def refusal(entry: CatalogEntry, error: EntryMismatchError) -> CatalogEntry:
    """``entry`` refused for ``error``, until its source lists the skill otherwise."""
    problem = SkillProblem(
        entry.served_name, error.location or entry.location, codes.ENTRY_MISMATCH, error.message
    )
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
