"""The well-known skills index (agentskills.io discovery draft, schema 0.2.0), read and written.

``<base>/.well-known/agent-skills/index.json`` holds::

    {"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
     "skills": [{"name": ..., "type": "skill-md" | "archive", "description": ...,
                 "url": ..., "digest": "sha256:<64 lowercase hex>", "version": ...}]}

Reading keeps the draft's client rules: an index whose ``$schema`` is absent or unknown is not
processed (refused whole); an entry of an unknown ``type`` is skipped and reported; unknown
fields are ignored. One malformed entry never hides the others: it is reported in its place.

skillfs publications add one field to each entry, which other clients ignore:
``skillfs-skill-md``, the skill's SKILL.md, so a catalog loads from the index alone and fetches
an archive only when a skill's files are needed. A signed publication's index also carries
``skillfs-sequence`` at its top level (:mod:`skills_core._trust.signing`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import unquote, urljoin, urlsplit

from backends._digests import is_digest
from backends._errors import StorageError, UnsafePathError
from backends._paths import check_relative_path, check_skill_name
from backends._remote.layout import passes

INDEX_PATH = ".well-known/agent-skills/index.json"
"""Where the index sits below its base URL."""

SIGNATURE_SUFFIX = ".sig"
"""A signed index's signature file is named as the index, plus this (:mod:`.signing`)."""

SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
"""The schema skillfs reads and writes."""

SKILL_MD = "skill-md"
"""The artifact is the skill's SKILL.md alone."""

ARCHIVE = "archive"
"""The artifact is a zip or tar.gz of the skill's folder, its files at the archive root."""

INLINE_SKILL_MD = "skillfs-skill-md"
"""The field of a skillfs publication's entries that carries the SKILL.md text."""

SEQUENCE = "skillfs-sequence"
"""The top-level field of a signed index that grows with each publication (rollback check)."""

_KNOWN_SCHEMAS = frozenset({SCHEMA})
_BASE = "http://base.invalid/"
"""A stand-in origin for resolving entry URLs as RFC 3986 says, inside the base folder."""
_TYPES = (SKILL_MD, ARCHIVE)


class IndexEntry(NamedTuple):
    """One skill of an index.

    Attributes:
        name: The skill's name (its identity in the index, and its folder name here).
        description: What the skill does, as the index says.
        type: ``skill-md`` or ``archive``.
        url: The artifact's URL as written (resolved against the index's URL).
        digest: ``sha256:`` digest of the artifact's bytes.
        version: The artifact's version, when the index gives one.
        skill_md: The SKILL.md carried in the index (skillfs publications), or ``None``.
    """

    name: str
    description: str
    type: str
    url: str
    digest: str
    version: str | None = None
    skill_md: bytes | None = None


class Index(NamedTuple):
    """A parsed index.

    Attributes:
        entries: The usable entries by name, in index order.
        problems: ``(label, error)`` for each entry that cannot be used: its name, or
            ``skills[i]`` when it has no usable one.
        sequence: The index's ``skillfs-sequence``, when it has one (an integer from 0 to
            2**63 - 1).
    """

    entries: Mapping[str, IndexEntry]
    problems: tuple[tuple[str, StorageError], ...] = ()
    sequence: int | None = None


def parse_index(data: bytes, *, location: str) -> Index:
    """Read an index's JSON.

    Raises:
        StorageError: The data is not an index, or its ``$schema`` is absent or unknown.
    """
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StorageError(f"not a skills index: {exc}", location=location) from exc
    if not isinstance(document, dict):
        raise StorageError("not a skills index: not a JSON object", location=location)
    schema = document.get("$schema")
    if schema not in _KNOWN_SCHEMAS:
        found = "no $schema" if schema is None else f"$schema {schema!r}"
        raise StorageError(
            f"not processed: the index has {found}; skillfs reads {SCHEMA}", location=location
        )
    skills = document.get("skills")
    if not isinstance(skills, list):
        raise StorageError("not a skills index: 'skills' is not a list", location=location)
    entries: dict[str, IndexEntry] = {}
    refused: list[tuple[int, str, StorageError]] = []
    for position, raw in enumerate(skills):
        name = raw.get("name") if isinstance(raw, dict) else None
        where = f"{location}#skills[{position}]"
        try:
            entry = _entry(raw, location=where)
        except StorageError as exc:
            refused.append((position, name if isinstance(name, str) else "", exc))
            continue
        if entry.name in entries:
            duplicate = StorageError("duplicate name: the first entry wins", location=where)
            refused.append((position, "", duplicate))
        else:
            entries[entry.name] = entry
    problems = []
    taken = set(entries)
    for position, name, error in refused:  # labels stay unique: they name refs
        label = name if name and name not in taken else f"skills[{position}]"
        taken.add(label)
        problems.append((label, error))
    sequence = document.get(SEQUENCE)
    valid = type(sequence) is int and 0 <= sequence < 2**63  # what SQLite stores
    return Index(entries, tuple(problems), sequence if valid else None)


def render_index(entries: Sequence[IndexEntry], *, sequence: int | None = None) -> bytes:
    """The JSON of an index of ``entries``, in their order, the same bytes for the same entries.

    ``sequence``, when given, is written as ``skillfs-sequence`` (signed publications).
    """
    skills = []
    for entry in entries:
        fields: dict[str, Any] = {
            "name": entry.name,
            "type": entry.type,
            "description": entry.description,
            "url": entry.url,
            "digest": entry.digest,
        }
        if entry.version is not None:
            fields["version"] = entry.version
        if entry.skill_md is not None:
            fields[INLINE_SKILL_MD] = entry.skill_md.decode()
        skills.append(fields)
    document: dict[str, Any] = {"$schema": SCHEMA}
    if sequence is not None:
        document[SEQUENCE] = sequence
    document["skills"] = skills
    text = json.dumps(document, indent=2, ensure_ascii=False)
    return (text + "\n").encode()


def _entry(raw: object, *, location: str) -> IndexEntry:
    """One entry, checked.

    Raises:
        UnsafePathError: The name could not be a folder name.
        StorageError: A field is missing or malformed, or the type is unknown.
    """
    if not isinstance(raw, dict):
        raise StorageError("invalid entry: not a JSON object", location=location)
    fields = {key: raw.get(key) for key in ("name", "description", "type", "url")}
    for key, value in fields.items():
        if not isinstance(value, str) or not value:
            message = f"invalid entry: {key!r} must be a non-empty string"
            raise StorageError(message, location=location)
    name, kind = str(fields["name"]), str(fields["type"])
    if not passes(check_skill_name, name):
        raise UnsafePathError(f"unsafe skill name {name!r}", location=location)
    if kind not in _TYPES:
        raise StorageError(
            f"skipped: unknown artifact type {kind!r} (skillfs reads 'skill-md' and 'archive')",
            location=location,
        )
    digest = raw.get("digest")
    if not is_digest(digest):
        raise StorageError(
            "invalid entry: 'digest' must be 'sha256:' and 64 lowercase hex digits",
            location=location,
        )
    version = raw.get("version")
    inline = raw.get(INLINE_SKILL_MD)
    return IndexEntry(
        name,
        str(fields["description"]),
        kind,
        str(fields["url"]),
        digest,
        version if isinstance(version, str) else None,
        inline.encode() if isinstance(inline, str) else None,
    )


def artifact_path(index: str, url: str, *, location: str) -> str:
    """An entry's ``url`` as a path in the base folder, ``index`` being the index's path there.

    Raises:
        StorageError: The URL names another host or scheme, or leaves the base folder.
    """
    target = urlsplit(urljoin(_BASE + index, url))
    if f"{target.scheme}://{target.netloc}/" != _BASE:
        raise StorageError(
            f"artifact URL {url!r} names another host: an index in a bucket or folder "
            "names its artifacts with relative URLs",
            location=location,
        )
    return check_relative_path(unquote(target.path).lstrip("/"))
