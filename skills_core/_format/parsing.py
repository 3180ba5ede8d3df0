"""SKILL.md bytes to a frontmatter mapping and a markdown body; convention files as SKILL.md.

Fences are lines that are exactly ``---`` (trailing blanks allowed); a UTF-8 BOM and CRLF line
ends are tolerated (docs/catalog.md, "Parsing").
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NamedTuple

from backends._errors import LimitExceededError
from backends._limits import DEFAULT_LIMITS, too_large
from skills_core import _codes as codes
from skills_core._errors import SkillParseError
from skills_core._format.fast_path import is_blank_from, load_simple_mapping
from skills_core._format.models import DEFAULT_FORMAT_LIMITS, FormatLimits, SkillProblem
from skills_core._format.validation import DESCRIPTION_MAX_LENGTH
from skills_core._format.yaml_loader import load_yaml

_OPENING_FENCE = re.compile(rb"(?:\xef\xbb\xbf)?---[ \t\r]*$", re.MULTILINE)  # a BOM allowed
_CLOSING_FENCE = re.compile(rb"\n---[ \t\r]*$", re.MULTILINE)
_MAX_SKILL_MD_BYTES = DEFAULT_LIMITS.max_skill_md_bytes


class ParsedSkillMd(NamedTuple):
    """A SKILL.md's frontmatter mapping (not yet validated), body and location."""

    frontmatter: dict[str, Any]
    body: str
    location: str


def parse_skill_md(
    data: bytes | str,
    *,
    location: str,
    limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
    max_skill_md_bytes: int = _MAX_SKILL_MD_BYTES,
) -> ParsedSkillMd:
    """Split and load a SKILL.md; ``location`` is for errors.

    Raises:
        LimitExceededError, SkillParseError: As :func:`split_skill_md` and
            :func:`parse_frontmatter`.
    """
    split = split_skill_md(
        data, location=location, limits=limits, max_skill_md_bytes=max_skill_md_bytes
    )
    frontmatter = parse_frontmatter(split.frontmatter, location=location, limits=limits)
    return ParsedSkillMd(frontmatter, split.body, location)


class SplitSkillMd(NamedTuple):
    """A SKILL.md cut at its fences: the decoded frontmatter, and the body left in ``raw``."""

    raw: bytes
    frontmatter: str
    body_start: int

    @property
    def body(self) -> str:
        """The body, as :func:`body_text` gives it."""
        return body_text(self.raw, self.body_start)

    @property
    def body_is_blank(self) -> bool:
        """True when nothing but whitespace follows the frontmatter."""
        return is_blank_from(self.raw, self.body_start)


def body_text(raw: bytes, body_start: int) -> str:
    """The body of a SKILL.md, decoded, line ends normalised, without surrounding blank lines."""
    return _text(raw[body_start:]).strip("\n")


def split_skill_md(
    data: bytes | str,
    *,
    location: str,
    limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
    max_skill_md_bytes: int = _MAX_SKILL_MD_BYTES,
) -> SplitSkillMd:
    """Find the fences of a SKILL.md, decode its frontmatter and check sizes and UTF-8.

    The body is only checked, not decoded, until someone reads it.

    Raises:
        LimitExceededError: The file is over ``max_skill_md_bytes``, or its frontmatter over
            ``limits.max_frontmatter_bytes``.
        SkillParseError: Not UTF-8, or no frontmatter fences.
    """
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > max_skill_md_bytes:
        raise too_large("SKILL.md", len(raw), max_skill_md_bytes, location=location)
    opening = _OPENING_FENCE.match(raw)
    if opening is None:
        raise SkillParseError(
            "SKILL.md must start with a '---' line opening its YAML frontmatter",
            location=location,
            code=codes.NO_FRONTMATTER,
        )
    first_end = opening.end()
    closing = _CLOSING_FENCE.search(raw, first_end)
    if closing is None:
        raise SkillParseError(
            "frontmatter is not closed by a '---' line",
            location=location,
            code=codes.UNCLOSED_FRONTMATTER,
        )
    fence, body_start = closing.start(), closing.end() + 1
    if fence - first_end - 1 > limits.max_frontmatter_bytes:
        size = fence - first_end - 1
        raise too_large("frontmatter", size, limits.max_frontmatter_bytes, location=location)
    frontmatter = _decode(raw, first_end + 1, fence, location)
    if not raw.isascii():
        _decode(raw, body_start, len(raw), location)
    return SplitSkillMd(raw, _normalise_line_ends(frontmatter), body_start)


def parse_frontmatter(
    text: str, *, location: str, limits: FormatLimits = DEFAULT_FORMAT_LIMITS, core: bool = False
) -> dict[str, Any]:
    """Load frontmatter text: the fast reader for simple YAML, PyYAML (bounded) for the rest.

    ``core`` reads plain scalars by the YAML 1.2 core schema (see ``load_yaml``).

    Raises:
        SkillParseError: Invalid YAML, too many aliases or too deep, or not a mapping.
    """
    mapping = load_simple_mapping(text)
    if mapping is not None:
        return mapping
    mapping = load_yaml(text, limits=limits, location=location, first_line=2, core=core)
    if not isinstance(mapping, dict):
        kind = "empty" if mapping is None else f"a {type(mapping).__name__}"
        raise SkillParseError(
            f"frontmatter must be a YAML mapping, not {kind}",
            location=location,
            code=codes.NOT_A_MAPPING,
        )
    return mapping


def read_frontmatter(
    text: str, *, location: str, limits: FormatLimits, strict: bool, core: bool = False
) -> tuple[dict[str, Any], tuple[SkillProblem, ...]]:
    """:func:`parse_frontmatter`, then the mapping and a warning per line it quoted.

    Unless ``strict``, unquoted colons YAML refuses are quoted (:func:`quote_unquoted_colons`).

    Raises:
        SkillParseError: Unreadable, even after quoting unquoted colons (lenient only).
    """
    try:
        return parse_frontmatter(text, location=location, limits=limits, core=core), ()
    except SkillParseError as exc:
        if strict or exc.code != codes.INVALID_YAML:
            raise
        repaired, issues = quote_unquoted_colons(text)
        if not issues:
            raise
        try:
            mapping = parse_frontmatter(repaired, location=location, limits=limits, core=core)
        except SkillParseError:
            raise exc from None
        return mapping, issues


def frontmatter_text(raw: bytes, body_start: int) -> str:
    """The text between the fences of a SKILL.md :func:`split_skill_md` accepted."""
    return _text(raw[raw.index(b"\n") + 1 : raw.rindex(b"\n", 0, body_start - 1)])


def _decode(raw: bytes, start: int, end: int, location: str) -> str:
    try:
        return raw[start:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillParseError(
            f"SKILL.md is not UTF-8 (bad byte at offset {start + exc.start})",
            location=location,
            code=codes.NOT_UTF8,
        ) from exc


def _normalise_line_ends(text: str) -> str:
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").removesuffix("\r")


def _text(raw: bytes) -> str:
    return _normalise_line_ends(raw.decode("utf-8"))


# Unquoted colons: ``key: a: b`` is invalid YAML that many skills hold.

_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S.*?)[ ]*\Z")
_NOT_PLAIN = frozenset("'\"[]{}|>&*!%@`#")


def quote_unquoted_colons(text: str) -> tuple[str, tuple[SkillProblem, ...]]:
    """``text`` with each repairable value single-quoted, and a warning per line quoted.

    Only a top-level ``key: value`` line whose plain value holds ``: `` (or ends in ``:``) and
    is not continued on the next line is rewritten. Warnings number lines as in the SKILL.md.
    """
    lines = text.split("\n")
    issues: list[SkillProblem] = []
    for index, line in enumerate(lines):
        match = _ENTRY.match(line)
        if match is None:
            continue
        key, value = match.groups()
        value = value.split(" #", 1)[0].rstrip(" ")  # a comment stays a comment
        if value[0] in _NOT_PLAIN or not (": " in value or value.endswith(":")):
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if following.startswith((" ", "\t")) and following.strip():
            continue  # a plain scalar continued below: quoting one line would change it
        lines[index] = f"{key}: '{value.replace(chr(39), chr(39) * 2)}'"
        message = (
            f"line {index + 2}: the value of {key!r} holds an unquoted ': ', which "
            "YAML refuses; read as a quoted string"
        )
        issues.append(SkillProblem.found(codes.UNQUOTED_COLON, message, key))
    return "\n".join(lines), tuple(issues)


# The frontmatter as JSON values, for the MCP skills extension.

_KEYWORDS = {True: "true", False: "false", None: ""}


def frontmatter_json(
    text: str, *, location: str, limits: FormatLimits = DEFAULT_FORMAT_LIMITS
) -> dict[str, Any]:
    """The frontmatter ``text`` as JSON values, as a YAML 1.2 reader reads it (docs/mcp.md).

    Keys that are not strings are written as JSON-minded readers write them (``1`` as
    ``"1"``, null as ``""``); unquoted colons are quoted first, as a lenient catalog does.

    Raises:
        SkillParseError: Unreadable YAML; or ``INVALID_VALUE``: a value JSON cannot carry as
            the file means it (``.inf``, ``!!binary``, ...), or keys that collide once written.
    """
    mapping, _ = read_frontmatter(text, location=location, limits=limits, strict=False, core=True)
    result: dict[str, Any] = _json(mapping, location)
    return result


def _json(value: Any, location: str) -> Any:
    if value is None or isinstance(value, str | int) or _finite(value):
        return value
    if isinstance(value, list):
        return [_json(item, location) for item in value]
    if not isinstance(value, dict):
        raise _refused(f"{_shown(value)}, which JSON cannot carry as YAML reads it", location)
    result = {_key(key, location): _json(item, location) for key, item in value.items()}
    if len(result) < len(value):
        raise _refused(f"keys that are the same once written as JSON: {_shown(value)}", location)
    return result


def _key(key: Any, location: str) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return _KEYWORDS[key]
    if isinstance(key, int) or (_finite(key) and key.is_integer()):
        return str(int(key))
    if _finite(key):
        return repr(key)
    raise _refused(f"the key {_shown(key)}, which JSON cannot carry", location)


def _refused(what: str, location: str) -> SkillParseError:
    return SkillParseError(
        f"the frontmatter holds {what}", location=location, code=codes.INVALID_VALUE
    )


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Convention files (AGENTS.md, CLAUDE.md, ...) as SKILL.md documents.

_TAGS = {"agent.md": "agents-md"}  # AGENT.md is AGENTS.md's other spelling
_FIRST_LINE_CHARACTERS = 120


def convention_skill_md(data: bytes, *, name: str, file_name: str) -> bytes:
    """The SKILL.md a convention file (``file_name``, e.g. ``AGENTS.md``) stands for.

    A file whose frontmatter gives a name and a description is used as it is; any other
    becomes a skill named ``name``, tagged ``convention`` and its kind (``claude-md``, ...),
    described by its first heading, else its first line, else its file name.
    """
    if _has_identity(data, file_name):
        return data
    text = data.decode("utf-8", errors="replace")
    kind = file_name.lower()
    tags = ["convention", _TAGS.get(kind, kind.replace(".", "-"))]
    description = _description(text) or f"Instructions loaded from {file_name}"
    header = (
        f"---\nname: {name}\n"
        f"description: {json.dumps(description[:DESCRIPTION_MAX_LENGTH], ensure_ascii=False)}\n"
        f"tags: [{', '.join(tags)}]\n---\n"
    )
    return header.encode() + data


def _has_identity(data: bytes, location: str) -> bool:
    """True when the file opens with a frontmatter giving a name and a description."""
    try:
        frontmatter = parse_skill_md(data, location=location).frontmatter
    except (SkillParseError, LimitExceededError):
        return False
    return all(isinstance(frontmatter.get(key), str) for key in ("name", "description"))


def _description(text: str) -> str | None:
    """The first heading's text, or the start of the first line that has any text."""
    for line in text.splitlines():
        stripped = "".join(char for char in line.strip() if char.isprintable())
        if not stripped:
            continue
        heading = stripped.lstrip("#").strip()
        if stripped.startswith("#") and heading:
            return heading
        return stripped[:_FIRST_LINE_CHARACTERS]
    return None
