"""The fast path of a cold load: simple YAML without PyYAML, clean skills typed in one pass.

A second route beside ``yaml_loader`` and ``validation``, kept for its speed (docs/benchmarks.md,
"Second routes kept") and held equal to them by ``tests/core/test_simple_yaml.py``. The simple
subset: one mapping of ``key: value`` lines whose values are one-line plain or quoted strings,
``|``/``>`` blocks of evenly indented lines, or one indented block of such entries or ``- value``
items.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

import yaml

from skills_core._format.models import METADATA_DEFAULTS, FormatLimits, SkillMetadata
from skills_core._format.validation import (
    DESCRIPTION_MAX_LENGTH,
    FIELDS,
    FieldProblem,
    is_plain_name,
)
from skills_core._format.yaml_loader import CORE_RESOLVERS

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_BLOCK_STYLES = {"|": "\n", "|-": "\n", ">": " ", ">-": " "}
# Characters PyYAML or libyaml refuse, or read as line breaks, plus tab and the BOM.
_ALLOWED_ASCII = b"\n" + bytes(range(0x20, 0x7F))
_DECLINED_CHARS = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_NOT_STRINGS = {
    first: re.compile(
        "|".join(
            f"(?:{regexp.pattern})"
            for resolvers in (yaml.SafeLoader.yaml_implicit_resolvers, CORE_RESOLVERS)
            for _, regexp in resolvers.get(first, ())
        ),
        re.VERBOSE,
    )
    for first in {*yaml.SafeLoader.yaml_implicit_resolvers, *CORE_RESOLVERS}
}
"""By first character, the plain scalars YAML 1.1 or 1.2 reads as other than strings."""
_NOT_PLAIN_FIRST = _INDICATORS | _NOT_STRINGS.keys()
_MAX_KEY_LENGTH = 1024  # PyYAML and libyaml refuse a longer implicit key
_NON_SPACE = re.compile(rb"\S")
_OPENING = b"---\n"
_CLOSING = b"\n---\n"


class NotSimpleYaml(Exception):
    """The text is outside the subset."""


def load_simple_mapping(text: str) -> dict[str, Any] | None:
    """Read ``text`` as PyYAML would, or return ``None`` if it is outside the simple subset."""
    try:
        return dict(iter_simple_entries(text)) or None
    except NotSimpleYaml:
        return None


def iter_simple_entries(text: str) -> Iterator[tuple[str, Any]]:
    """Yield the top-level ``(key, value)`` pairs of ``text`` as PyYAML reads them.

    Raises:
        NotSimpleYaml: The text is outside the subset (possibly after some pairs).
    """
    if not _plain_characters(text):
        raise NotSimpleYaml
    lines = text.split("\n")
    seen: set[str] = set()
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        index += 1
        if not line or line[0] == "#":
            continue
        if line[0] == " ":
            if line.strip(" "):
                raise NotSimpleYaml  # an indented line no block above it claimed
            continue
        key, colon, rest = line.partition(":")  # _entry(), inlined: this loop is the hot path
        if not colon or key in seen or not _is_key(key):
            raise NotSimpleYaml  # not an entry, or a duplicate key (an error PyYAML reports)
        if rest and rest[0] != " ":
            raise NotSimpleYaml  # `key:value` is one plain scalar in YAML, not a mapping entry
        seen.add(key)
        value = rest.strip(" ")
        if not value:
            block, index = _block(lines, index)
            yield key, block
        elif value in _BLOCK_STYLES:
            folded, index = _block_string(lines, index, value)
            yield key, folded
        elif value[0] in _NOT_PLAIN_FIRST or ": " in value or " #" in value or value[-1] == ":":
            yield key, _scalar(value)
        else:
            yield key, value  # a plain string, as most values are: nothing to decide


def _plain_characters(text: str) -> bool:
    """False when ``text`` holds a tab, a control character or a character YAML reads oddly."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _ALLOWED_ASCII)
    return _DECLINED_CHARS.search(text) is None


def _entry(line: str) -> tuple[str, str]:
    key, colon, rest = line.partition(":")
    if not colon or not _is_key(key):
        raise NotSimpleYaml
    if rest and rest[0] != " ":
        raise NotSimpleYaml  # `key:value` is one plain scalar in YAML, not a mapping entry
    return key, rest.strip(" ")


def _indented(lines: list[str], index: int) -> tuple[list[str], int]:
    """The lines indented under the key before ``index``, and where the next key starts."""
    block: list[str] = []
    while index < len(lines):
        line = lines[index]
        if line and line[0] != " ":
            break
        block.append(line)
        index += 1
    while block and not block[-1].strip(" "):
        block.pop()
        index -= 1
    return block, index


def _block(lines: list[str], index: int) -> tuple[dict[str, str] | list[str] | None, int]:
    """An indented mapping or list of scalars under a key, or ``None``."""
    block, index = _indented(lines, index)
    mapping: dict[str, str] = {}
    items: list[str] = []
    indent = 0
    for line in block:
        content = line.lstrip(" ")
        if not content or content[0] == "#":
            continue
        width = len(line) - len(content)
        if width != (indent or width):
            raise NotSimpleYaml  # deeper or shallower lines: nesting YAML must read
        indent = width
        if content[0] == "-" and not mapping:
            items.append(_item(content))
            continue
        key, value = _entry(content)
        if not value or value in _BLOCK_STYLES or key in mapping or items:
            raise NotSimpleYaml
        mapping[key] = _scalar(value)
    return (items or mapping or None), index


def _item(text: str) -> str:
    if not text.startswith("- ") or not text[2:].strip(" "):
        raise NotSimpleYaml
    return _scalar(text[2:].strip(" "))


def _block_string(lines: list[str], index: int, style: str) -> tuple[str, int]:
    """A ``|``/``>`` block of evenly indented lines without blank lines between them."""
    block, next_index = _indented(lines, index)
    if not block or not block[0].strip(" "):
        raise NotSimpleYaml
    indent = len(block[0]) - len(block[0].lstrip(" "))
    if any(
        not line.strip(" ") or line[:indent].strip(" ") or line[indent] == " " for line in block
    ):
        raise NotSimpleYaml  # blank or more-indented lines fold in ways YAML must decide
    if _spaces_follow(lines, next_index):
        raise NotSimpleYaml  # trailing lines of spaces may be content of the block
    text = _BLOCK_STYLES[style].join(line[indent:] for line in block)
    # Clipping keeps the final line break, which exists unless the text ended on this line.
    ends_with_break = index + len(block) < len(lines)
    return (text + "\n" if style in ("|", ">") and ends_with_break else text), next_index


def _spaces_follow(lines: list[str], index: int) -> bool:
    """True when a line of nothing but spaces comes before the next line with content."""
    for line in lines[index:]:
        if line.strip(" "):
            return False
        if line:
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _is_key(key: str) -> bool:
    """Whether YAML reads a plain key as a string (cached: keys repeat)."""
    return len(key) <= _MAX_KEY_LENGTH and bool(_KEY.match(key)) and _is_plain_string(key)


def _scalar(value: str) -> str:
    """The string a one-line scalar stands for; else :exc:`NotSimpleYaml`."""
    first = value[0]
    if first == '"':
        end = value.find('"', 1)
        if end != len(value) - 1 or "\\" in value:
            raise NotSimpleYaml
        return value[1:end]
    if first == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
            raise NotSimpleYaml
        return inner.replace("''", "'")
    if (
        first in _INDICATORS
        or ": " in value
        or " #" in value
        or value[-1] == ":"
        or not _is_plain_string(value)
    ):
        raise NotSimpleYaml
    return value


def _is_plain_string(value: str) -> bool:
    """True when YAML 1.1 and 1.2 both read this plain scalar as a string."""
    not_strings = _NOT_STRINGS.get(value[0])
    return not_strings is None or not_strings.match(value) is None


class CleanSkill(NamedTuple):
    """A SKILL.md with nothing to report: its metadata and where its body starts."""

    metadata: SkillMetadata
    body_start: int


def read_clean_skill(
    raw: bytes, *, folder_name: str, limits: FormatLimits, max_skill_md_bytes: int
) -> CleanSkill | None:
    """The metadata of a clean SKILL.md, or ``None`` when the full verdict must judge it."""
    if not raw.startswith(_OPENING) or len(raw) > max_skill_md_bytes:
        return None
    fence = raw.find(_CLOSING, len(_OPENING) - 1)
    body_start = fence + len(_CLOSING)
    if fence < 0 or fence - len(_OPENING) > limits.max_frontmatter_bytes:
        return None
    if is_blank_from(raw, body_start):
        return None
    try:
        if not raw.isascii():
            raw.decode("utf-8")  # the whole file must be UTF-8, not only the frontmatter
        row = _typed_row(raw[len(_OPENING) : fence].decode("utf-8"), folder_name)
    except (UnicodeDecodeError, NotSimpleYaml, FieldProblem):
        return None
    if row is None:
        return None
    return CleanSkill(SkillMetadata._make(row), body_start)


def is_blank_from(raw: bytes, start: int) -> bool:
    """True when nothing but whitespace follows ``start``."""
    return _NON_SPACE.search(raw, start) is None


def _typed_row(frontmatter: str, folder_name: str) -> list[Any] | None:
    """The metadata fields in order, or ``None`` at the first thing worth a report."""
    row = list(METADATA_DEFAULTS)
    for key, value in iter_simple_entries(frontmatter):
        if key == "name":
            if value != folder_name or not is_plain_name(value):
                return None
            row[0] = value
        elif key == "description":
            if type(value) is not str or len(value) > DESCRIPTION_MAX_LENGTH:
                return None
            row[1] = value.strip() or None
        else:
            spec = FIELDS.get(key)
            if spec is None:
                return None
            typed = spec.coerce(value)
            too_long = spec.max_length is not None and len(value) > spec.max_length
            if too_long or (spec.advise is not None and spec.advise(typed)):
                return None
            row[spec.position] = typed
    if row[0] is None or row[1] is None:
        return None
    return row
