"""The well-known skills index (agentskills.io discovery draft, schema 0.2.0), read and written.

An index of absent or unknown ``$schema`` is refused whole; an unknown or malformed entry is
reported in its place. skillfs publications add ``skillfs-skill-md`` (the SKILL.md) to each
entry and, signed, ``skillfs-sequence`` at the top (docs/index-and-publishing.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import unquote, urljoin, urlsplit

from backends._digests import is_digest
from backends._errors import StorageError, UnsafePathError
from backends._paths import check_relative_path, is_skill_name

INDEX_PATH = ".well-known/agent-skills/index.json"  # below its base URL
SIGNATURE_SUFFIX = ".sig"  # a signed index's signature file: the index's name plus this
SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
SKILL_MD = "skill-md"  # artifact types: the SKILL.md alone,
ARCHIVE = "archive"  # or a zip or tar.gz of the skill's folder, its files at the root
INLINE_SKILL_MD = "skillfs-skill-md"
SEQUENCE = "skillfs-sequence"  # grows with each signed publication (rollback check)

_KNOWN_SCHEMAS = frozenset({SCHEMA})
_BASE = "http://base.invalid/"  # a stand-in origin to resolve entry URLs inside the base
_TYPES = (SKILL_MD, ARCHIVE)


class IndexEntry(NamedTuple):
    """One skill of an index; ``url`` as written, ``digest`` the artifact's."""

    name: str
    description: str
    type: str
    url: str
    digest: str
    version: str | None = None
    skill_md: bytes | None = None


class Index(NamedTuple):
    """A parsed index: usable entries by name, ``(label, error)`` problems, its sequence."""

    entries: Mapping[str, IndexEntry]
    problems: tuple[tuple[str, StorageError], ...] = ()
    sequence: int | None = None


def parse_index(data: bytes, *, location: str) -> Index:
    """Read an index's JSON; StorageError when it is none or of an unknown ``$schema``."""
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
    """The JSON of an index of ``entries`` (and ``sequence``), the same bytes for the same."""
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
    """One entry, checked (UnsafePathError for a name that is no folder name)."""
    if not isinstance(raw, dict):
        raise StorageError("invalid entry: not a JSON object", location=location)
    fields = {key: raw.get(key) for key in ("name", "description", "type", "url")}
    for key, value in fields.items():
        if not isinstance(value, str) or not value:
            message = f"invalid entry: {key!r} must be a non-empty string"
            raise StorageError(message, location=location)
    name, kind = str(fields["name"]), str(fields["type"])
    if not is_skill_name(name):
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
    """An entry's ``url`` as a path in the base folder; StorageError when it leaves it."""
    target = urlsplit(urljoin(_BASE + index, url))
    if f"{target.scheme}://{target.netloc}/" != _BASE:
        raise StorageError(
            f"artifact URL {url!r} names another host: an index in a bucket or folder "
            "names its artifacts with relative URLs",
            location=location,
        )
    return check_relative_path(unquote(target.path).lstrip("/"))
