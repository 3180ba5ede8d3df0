"""A fast reader for the simple YAML most frontmatter is written in.

It understands one mapping of ``key: value`` lines whose values are single-line plain or quoted
strings, literal or folded block strings (``|``, ``|-``, ``>``, ``>-``) of evenly indented lines
with no blank line between them, or one indented block: a mapping of such ``key: value`` lines
(``metadata:``) or a list of ``- value`` items (``tags:``), where blank and comment lines may
stand between entries, as YAML allows. Keys are plain words of at most 1,024 characters (YAML's
limit for a key on one line). For that subset it returns exactly what PyYAML's safe loader
returns, with or without libyaml; for anything else (flow style, anchors, tags, escapes,
multi-line plain values, deeper lines inside blocks, duplicate keys, values YAML 1.1 or 1.2
would read as numbers, booleans, dates or null) it returns ``None`` and the caller falls back
to PyYAML. What it returns is therefore also what a YAML 1.2 core-schema reader returns.
Differential tests hold the two equal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

from skills_core.format.yaml_loader import CORE_RESOLVERS

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_BLOCK_STYLES = {"|": "\n", "|-": "\n", ">": " ", ">-": " "}
# Characters PyYAML or libyaml refuse, or read as line breaks, plus tab and the BOM.
_ALLOWED_ASCII = b"\n" + bytes(range(0x20, 0x7F))
_DECLINED_CHARS = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_RESOLVERS = {
    first: [*yaml.SafeLoader.yaml_implicit_resolvers.get(first, ()), *CORE_RESOLVERS.get(first, ())]
    for first in {*yaml.SafeLoader.yaml_implicit_resolvers, *CORE_RESOLVERS}
}
_FIRST_CHARS_TO_CHECK = _INDICATORS | {char for char in _RESOLVERS if char}
_KEY_CACHE_SIZE = 1024
_MAX_KEY_LENGTH = 1024
"""YAML's longest implicit key: PyYAML and libyaml refuse a ``key:`` further from its start."""
_string_keys: dict[str, bool] = {}


class NotSimpleYaml(Exception):
    """The text is outside the subset; PyYAML must read it."""


def load_simple_mapping(text: str) -> dict[str, Any] | None:
    """Read ``text`` as PyYAML would, or return ``None`` if it is outside the simple subset."""
    try:
        return dict(iter_simple_entries(text)) or None
    except NotSimpleYaml:
        return None


def iter_simple_entries(text: str) -> Iterator[tuple[str, Any]]:
    """Yield the top-level ``(key, value)`` pairs of ``text`` in order, as PyYAML reads them.

    Raises:
        NotSimpleYaml: The text is outside the subset (possibly after some pairs were yielded).
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
        if not colon or key in seen or not (_string_keys.get(key) or _learn_key(key)):
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
        elif (
            value[0] in _FIRST_CHARS_TO_CHECK or ": " in value or " #" in value or value[-1] == ":"
        ):
            yield key, _scalar(value)
        else:
            yield key, value  # a plain string, as most values are: nothing to decide


def _plain_characters(text: str) -> bool:
    """False when ``text`` holds a tab, a control character or a character YAML reads oddly."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _ALLOWED_ASCII)
    return _DECLINED_CHARS.search(text) is None


def _entry(line: str) -> tuple[str, str]:
    """Split ``key: value`` into the key and the stripped rest (empty when none)."""
    key, colon, rest = line.partition(":")
    if not colon or not (_string_keys.get(key) or _learn_key(key)):
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
    """An indented mapping or list of scalars under a key; ``None`` when nothing is indented."""
    mapping: dict[str, str] = {}
    items: list[str] = []
    indent = 0
    count = len(lines)
    while index < count:
        line = lines[index]
        if line and line[0] != " ":
            break
        index += 1
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


def _learn_key(key: str) -> bool:
    """Whether a plain key is one YAML reads as a string; remembered, since keys repeat."""
    known = len(key) <= _MAX_KEY_LENGTH and bool(_KEY.match(key)) and _is_plain_string(key)
    if len(_string_keys) < _KEY_CACHE_SIZE:
        _string_keys[key] = known
    return known


def _scalar(value: str) -> str:
    first = value[0]
    if first in _INDICATORS:
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
        raise NotSimpleYaml
    if ": " in value or " #" in value or value[-1] == ":" or not _is_plain_string(value):
        raise NotSimpleYaml
    return value


def _is_plain_string(value: str) -> bool:
    """True when YAML 1.1 (PyYAML's resolver) and 1.2 both leave this plain scalar a string."""
    for _, regexp in _RESOLVERS.get(value[0], ()):  # noqa: SIM110 - a loop is twice as fast
        if regexp.match(value):
            return False
    return True
