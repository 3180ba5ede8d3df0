"""A fast reader for the simple YAML most frontmatter is written in.

It understands one mapping of ``key: value`` lines, whose values are single-line plain or
quoted strings, or one nested mapping of such lines (``metadata:``). For that subset it returns
exactly what PyYAML's safe loader returns; for anything else (lists, block scalars, anchors,
tags, escapes, multi-line values, duplicate keys, values YAML would read as numbers, booleans,
dates or null)
it returns ``None`` and the caller falls back to PyYAML. Differential tests hold the two equal.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# Characters PyYAML or libyaml refuse, or read as line breaks, plus tab and the BOM.
_DECLINED_CHARS = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_RESOLVERS = yaml.SafeLoader.yaml_implicit_resolvers


class _Decline(Exception):
    """The text is outside the subset; PyYAML must read it."""


def load_simple_mapping(text: str) -> dict[str, Any] | None:
    """Read ``text`` as PyYAML would, or return ``None`` if it is outside the simple subset."""
    if _DECLINED_CHARS.search(text):
        return None
    try:
        return _read_mapping(text.split("\n"))
    except _Decline:
        return None


def _read_mapping(lines: list[str]) -> dict[str, Any] | None:
    result: dict[str, Any] = {}
    nested: dict[str, Any] | None = None
    nested_indent = 0
    for line in lines:
        if not line.strip(" ") or line.startswith("#"):
            continue
        if line.startswith(" "):
            if nested is None:
                raise _Decline
            indent = len(line) - len(line.lstrip(" "))
            nested_indent = nested_indent or indent
            if indent != nested_indent:
                raise _Decline
            key, value = _split_entry(line[indent:])
            if value is None or key in nested:
                raise _Decline
            nested[key] = value
            continue
        key, value = _split_entry(line)
        if key in result:
            raise _Decline  # duplicate keys are an error; PyYAML's reader reports it
        if value is None:
            nested = {}
            nested_indent = 0
            result[key] = nested
        else:
            nested = None
            result[key] = value
    if not result:
        return None
    # An empty value with no indented lines under it is null, as in YAML.
    return {key: (None if value == {} else value) for key, value in result.items()}


def _split_entry(line: str) -> tuple[str, str | None]:
    """Split ``key: value``; a ``None`` value means the key ended the line."""
    key, colon, rest = line.partition(":")
    if not colon or not _KEY.match(key) or not _is_plain_string(key):
        raise _Decline
    if not rest.strip(" "):
        return key, None
    if not rest.startswith(" "):
        raise _Decline
    return key, _scalar(rest.strip(" "))


def _scalar(value: str) -> str:
    first = value[0]
    if first == '"':
        return _double_quoted(value)
    if first == "'":
        return _single_quoted(value)
    if first in _INDICATORS or ": " in value or " #" in value or value.endswith(":"):
        raise _Decline
    if not _is_plain_string(value):
        raise _Decline
    return value


def _double_quoted(value: str) -> str:
    end = value.find('"', 1)
    if end != len(value) - 1 or "\\" in value:
        raise _Decline
    return value[1:end]


def _single_quoted(value: str) -> str:
    if len(value) < 2 or not value.endswith("'"):
        raise _Decline
    inner = value[1:-1]
    if "'" in inner.replace("''", ""):
        raise _Decline
    return inner.replace("''", "'")


def _is_plain_string(value: str) -> bool:
    """True when PyYAML's resolver leaves this plain scalar a string."""
    return not any(regexp.match(value) for _, regexp in _RESOLVERS.get(value[0], ()))
