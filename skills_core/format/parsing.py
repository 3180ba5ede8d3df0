"""SKILL.md bytes -> frontmatter mapping and markdown body.

Fences are lines that are exactly ``---`` (trailing blanks allowed), so ``description: a --- b``
survives; a UTF-8 BOM and CRLF line ends are tolerated. The frontmatter's size, YAML aliases
and nesting are bounded by :class:`~skills_core.format.format_limits.FormatLimits`; the whole
file by ``max_skill_md_bytes``, the storage limit of the same name
(:class:`~backends.limits.Limits`).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from backends.limits import DEFAULT_LIMITS, check_size
from skills_core import codes
from skills_core.errors import SkillParseError
from skills_core.format.colon_repair import quote_unquoted_colons
from skills_core.format.format_limits import DEFAULT_FORMAT_LIMITS, FormatLimits
from skills_core.format.problems import SkillProblem
from skills_core.format.simple_yaml import load_simple_mapping
from skills_core.format.yaml_loader import load_yaml

_FENCE = b"---"
_BOM = b"\xef\xbb\xbf"
_NON_SPACE = re.compile(rb"\S")
_MAX_SKILL_MD_BYTES = DEFAULT_LIMITS.max_skill_md_bytes
"""The storage limit of a whole SKILL.md, the parsers' default ``max_skill_md_bytes``."""


class ParsedSkillMd(NamedTuple):
    """A SKILL.md split into its parts.

    Attributes:
        frontmatter: The YAML mapping, as loaded (values not yet validated).
        body: The markdown after the closing fence, without surrounding blank lines.
        location: Where the file came from.
    """

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
    """Split and load a SKILL.md.

    Args:
        data: The file.
        location: Where it came from, for errors.
        limits: The frontmatter's limits.
        max_skill_md_bytes: The largest file accepted (``Limits.max_skill_md_bytes``).

    Raises:
        LimitExceededError: The file is over ``max_skill_md_bytes``, or its frontmatter over
            ``limits.max_frontmatter_bytes``.
        SkillParseError: Not UTF-8, no frontmatter fences, invalid YAML, too many aliases,
            or the frontmatter is not a mapping.
    """
    split = split_skill_md(
        data, location=location, limits=limits, max_skill_md_bytes=max_skill_md_bytes
    )
    frontmatter = parse_frontmatter(split.frontmatter, location=location, limits=limits)
    return ParsedSkillMd(frontmatter, split.body, location)


class SplitSkillMd(NamedTuple):
    """A SKILL.md cut at its fences; the body stays bytes until someone reads it.

    Attributes:
        raw: The file as read.
        frontmatter: The frontmatter text, decoded, line ends normalised.
        body_start: Where the body begins in ``raw``.
    """

    raw: bytes
    frontmatter: str
    body_start: int

    @property
    def body(self) -> str:
        """The body, decoded, line ends normalised, without surrounding blank lines."""
        return body_text(self.raw, self.body_start)

    @property
    def body_is_blank(self) -> bool:
        """True when nothing but whitespace follows the frontmatter."""
        return is_blank_from(self.raw, self.body_start)


def body_text(raw: bytes, body_start: int) -> str:
    """The body of a SKILL.md, decoded, line ends normalised, without surrounding blank lines."""
    return _text(raw[body_start:]).strip("\n")


def is_blank_from(raw: bytes, start: int) -> bool:
    """True when nothing but whitespace follows ``start``."""
    return _NON_SPACE.search(raw, start) is None


def split_skill_md(
    data: bytes | str,
    *,
    location: str,
    limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
    max_skill_md_bytes: int = _MAX_SKILL_MD_BYTES,
) -> SplitSkillMd:
    """Find the fences of a SKILL.md, decode its frontmatter and check sizes and UTF-8.

    Works on bytes: the body is only validated here (a pure-ASCII file needs no decoding at
    all), so a catalog that loads 10,000 skills does not decode 10,000 bodies it may never
    serve.

    Raises:
        LimitExceededError: The file is over ``max_skill_md_bytes``, or its frontmatter over
            ``limits.max_frontmatter_bytes``.
        SkillParseError: Not UTF-8, or no frontmatter fences.
    """
    raw = data.encode() if isinstance(data, str) else data
    check_size(len(raw), max_skill_md_bytes, location=location, what="SKILL.md")
    start = 3 if raw.startswith(_BOM) else 0
    first_end = raw.find(b"\n", start)
    first_line = raw[start:] if first_end < 0 else raw[start:first_end]
    if first_line.rstrip(b" \t\r") != _FENCE:
        raise SkillParseError(
            "SKILL.md must start with a '---' line opening its YAML frontmatter",
            location=location,
            code=codes.NO_FRONTMATTER,
        )
    fence, body_start = _closing_fence(raw, first_end, location)
    frontmatter_size = max(0, fence - first_end - 1)
    check_size(
        frontmatter_size, limits.max_frontmatter_bytes, location=location, what="frontmatter"
    )
    frontmatter = _decode(raw, first_end + 1, fence, location)
    if not raw.isascii():
        _decode(raw, body_start, len(raw), location)
    return SplitSkillMd(raw, _normalise_line_ends(frontmatter), body_start)


def parse_frontmatter(
    text: str, *, location: str, limits: FormatLimits = DEFAULT_FORMAT_LIMITS, core: bool = False
) -> dict[str, Any]:
    """Load frontmatter text: the fast reader for simple YAML, PyYAML (bounded) for the rest.

    ``core`` reads plain scalars by the YAML 1.2 core schema, not YAML 1.1 (see
    :func:`~skills_core.format.yaml_loader.load_yaml`).

    Raises:
        SkillParseError: Invalid YAML, too many aliases or too deep, or not a mapping.
    """
    mapping = load_simple_mapping(text)
    if mapping is None:
        mapping = load_yaml(text, limits=limits, location=location, first_line=2, core=core)
    if not isinstance(mapping, dict):
        raise SkillParseError(
            f"frontmatter must be a YAML mapping, not {_yaml_kind(mapping)}",
            location=location,
            code=codes.NOT_A_MAPPING,
        )
    return mapping


def read_frontmatter(
    text: str, *, location: str, limits: FormatLimits, strict: bool, core: bool = False
) -> tuple[dict[str, Any], tuple[SkillProblem, ...]]:
    """:func:`parse_frontmatter`, quoting unquoted colons YAML refuses unless ``strict``.

    Returns the mapping and a warning per repaired line (see
    :mod:`~skills_core.format.colon_repair`).

    Raises:
        SkillParseError: Unreadable, even after quoting unquoted colons (lenient only).
    """
    try:
        return parse_frontmatter(text, location=location, limits=limits, core=core), ()
    except SkillParseError as exc:
        repaired = None if strict or exc.code != codes.INVALID_YAML else quote_unquoted_colons(text)
        if repaired is None:
            raise
        try:
            mapping = parse_frontmatter(repaired.text, location=location, limits=limits, core=core)
        except SkillParseError:
            raise exc from None
        return mapping, repaired.issues


def frontmatter_text(raw: bytes, body_start: int) -> str:
    """The text between the fences of a SKILL.md :func:`split_skill_md` accepted."""
    return _text(raw[raw.index(b"\n") + 1 : raw.rindex(b"\n", 0, body_start - 1)])


def _closing_fence(raw: bytes, first_end: int, location: str) -> tuple[int, int]:
    """The offset of the newline before the closing ``---`` line, and where the body starts."""
    search_from = first_end
    while first_end >= 0:
        fence = raw.find(b"\n---", search_from)
        if fence < 0:
            break
        line_end = raw.find(b"\n", fence + 1)
        if line_end < 0:
            line_end = len(raw)
        if raw[fence + 1 : line_end].rstrip(b" \t\r") == _FENCE:
            return fence, line_end + 1
        search_from = fence + 1
    raise SkillParseError(
        "frontmatter is not closed by a '---' line",
        location=location,
        code=codes.UNCLOSED_FRONTMATTER,
    )


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


def _yaml_kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"
