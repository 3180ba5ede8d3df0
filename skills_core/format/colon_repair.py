"""Frontmatter that other clients read but YAML refuses: unquoted ``: `` inside a value.

``description: Use when: the user asks`` is invalid YAML (the second ``: `` would open a
mapping inside a plain scalar), yet many skills are written so, because the loaders their
authors tried split on the first colon. agentskills.io's client-implementation guide asks
clients to quote such values and parse again; lenient catalogs do, with a warning, and strict
ones (``skillfs validate``) keep refusing them.

Only a top-level ``key: value`` line whose plain value holds ``: `` (or ends in ``:``) and is
not continued on the next line is rewritten, as a single-quoted scalar; anything else is left
for YAML to refuse.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from skills_core import codes
from skills_core.format.problems import SkillProblem

_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S.*?)[ ]*\Z")
_NOT_PLAIN = frozenset("'\"[]{}|>&*!%@`#")


class Repaired(NamedTuple):
    """Frontmatter text with its unquoted colons quoted, and a warning per repaired line."""

    text: str
    issues: tuple[SkillProblem, ...]


def quote_unquoted_colons(text: str, *, first_line: int = 2) -> Repaired | None:
    """Quote every repairable value; ``None`` when no line needs it.

    Args:
        text: The frontmatter text (between the fences).
        first_line: The line number of ``text``'s first line in its file, for warnings.
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
            f"line {first_line + index}: the value of {key!r} holds an unquoted ': ', which "
            "YAML refuses; read as a quoted string"
        )
        issues.append(SkillProblem.found(codes.UNQUOTED_COLON, message, key))
    return Repaired("\n".join(lines), tuple(issues)) if issues else None
