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

Values are compared as a listing in JSON carries them: what a YAML 1.1 reader makes of the
file equals the YAML 1.2 reading a listing gives (``yes`` and ``"yes"``, a date and its text).

A listed skill is served under the name its ref gives: a backend that lists two skills of one
name (``skill://a/pdf`` and ``skill://b/pdf``) names the second otherwise (``b.pdf``), and the
catalog serves it so, with a warning, instead of refusing one as a duplicate.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from backends.base import SkillDocument, SkillRef
from backends.errors import LimitExceededError, SkillNotFoundError
from backends.limits import Limits
from skills_core import codes
from skills_core.catalog.entries import CatalogEntry, frontmatter_verdict, read_frontmatter
from skills_core.errors import EntryMismatchError, SkillParseError
from skills_core.format.format_limits import FormatLimits
from skills_core.format.parsing import split_skill_md
from skills_core.format.problems import SkillProblem

_YAML_1_1_BOOLEANS = {
    True: frozenset({"y", "yes", "on", "true"}),
    False: frozenset({"n", "no", "off", "false"}),
}
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
    strict: bool,
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
        frontmatter, _ = read_frontmatter(
            source.frontmatter, entry.location, format_limits, strict=strict
        )
    except (SkillParseError, LimitExceededError) as exc:
        raise _mismatch(
            entry, f"its SKILL.md's frontmatter cannot be read ({exc.message})"
        ) from exc
    keys = sorted({*frontmatter, *listed}, key=str)
    differing = [
        key for key in keys if not _same(frontmatter.get(key, _ABSENT), listed.get(key, _ABSENT))
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


def _same(found: Any, listed: Any) -> bool:
    """Whether a value read from the file is the value the listing gave (see the docstring)."""
    if isinstance(found, bool):
        if isinstance(listed, str):
            return listed.lower() in _YAML_1_1_BOOLEANS[found]
        return listed is found
    if isinstance(found, datetime.date):  # datetimes too
        return listed in (found, str(found), found.isoformat())
    if isinstance(found, Mapping):
        return (
            isinstance(listed, Mapping)
            and found.keys() == listed.keys()
            and all(_same(value, listed[key]) for key, value in found.items())
        )
    if isinstance(found, list):
        return (
            isinstance(listed, list)
            and len(found) == len(listed)
            and all(map(_same, found, listed))
        )
    return found == listed and not isinstance(listed, bool)
