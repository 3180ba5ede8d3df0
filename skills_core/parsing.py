"""SKILL.md bytes -> frontmatter mapping and markdown body.

Fences are lines that are exactly ``---`` (trailing blanks allowed), so ``description: a --- b``
survives; a UTF-8 BOM and CRLF line ends are tolerated. Sizes and YAML aliases are bounded by
:class:`~backends.limits.Limits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backends.limits import DEFAULT_LIMITS, Limits
from skills_core import codes
from skills_core.errors import LimitExceededError, SkillParseError
from skills_core.simple_yaml import load_simple_mapping
from skills_core.yaml_loader import load_yaml

_FENCE = "---"


@dataclass(frozen=True, slots=True)
class ParsedSkillMd:
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
    data: bytes | str, *, location: str, limits: Limits = DEFAULT_LIMITS
) -> ParsedSkillMd:
    """Split and load a SKILL.md.

    Raises:
        LimitExceededError: The file or its frontmatter is larger than ``limits`` allow.
        SkillParseError: Not UTF-8, no frontmatter fences, invalid YAML, too many aliases,
            or the frontmatter is not a mapping.
    """
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) > limits.max_skill_md_bytes:
        raise LimitExceededError(
            f"SKILL.md is {len(raw)} bytes, over the {limits.max_skill_md_bytes}-byte limit",
            location=location,
        )
    text = _decode(raw, location)
    frontmatter_text, body = _split(text, location)
    frontmatter_size = len(frontmatter_text.encode())
    if frontmatter_size > limits.max_frontmatter_bytes:
        raise LimitExceededError(
            f"frontmatter is {frontmatter_size} bytes, "
            f"over the {limits.max_frontmatter_bytes}-byte limit",
            location=location,
        )
    mapping = load_simple_mapping(frontmatter_text)
    if mapping is None:
        mapping = load_yaml(frontmatter_text, limits=limits, location=location, first_line=2)
    if not isinstance(mapping, dict):
        raise SkillParseError(
            f"frontmatter must be a YAML mapping, not {_yaml_kind(mapping)}",
            location=location,
            code=codes.NOT_A_MAPPING,
        )
    return ParsedSkillMd(mapping, body, location)


def _decode(raw: bytes, location: str) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillParseError(
            f"SKILL.md is not UTF-8 (bad byte at offset {exc.start})",
            location=location,
            code=codes.NOT_UTF8,
        ) from exc
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n") if "\r" in text else text


def _split(text: str, location: str) -> tuple[str, str]:
    first_end = text.find("\n")
    first_line = text if first_end < 0 else text[:first_end]
    if first_line.rstrip(" \t") != _FENCE:
        raise SkillParseError(
            "SKILL.md must start with a '---' line opening its YAML frontmatter",
            location=location,
            code=codes.NO_FRONTMATTER,
        )
    search_from = first_end
    while first_end >= 0:
        fence = text.find("\n" + _FENCE, search_from)
        if fence < 0:
            break
        line_end = text.find("\n", fence + 1)
        if line_end < 0:
            line_end = len(text)
        if text[fence + 1 : line_end].rstrip(" \t") == _FENCE:
            return text[first_end + 1 : fence], text[line_end + 1 :].strip("\n")
        search_from = fence + 1
    raise SkillParseError(
        "frontmatter is not closed by a '---' line",
        location=location,
        code=codes.UNCLOSED_FRONTMATTER,
    )


def _yaml_kind(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"
