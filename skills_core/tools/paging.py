"""Loads that fit: a ``load_skill`` reply stays within a bound, and the rest stays reachable.

A reply is measured as the JSON a model receives (``json.dumps``, non-ASCII kept). A skill
whose reply fits is returned whole, as before. A longer one returns the first part of its
instructions, cut at a heading or a paragraph, with:

- ``offset`` / ``next_offset``: where this part starts and where the next one does (call
  ``load_skill`` again with ``offset=next_offset`` to read on: every character is reachable);
- ``sections``: the headings of what was left out (a section reads with ``section=``; a
  repeated heading is numbered, ``## Usage#2``);
- ``total_chars`` and ``left_out_chars``: how much there is, and how much is not shown;
- ``note``: the same, in words, for the model.

Only the first reply carries the skill's description, location, files and frontmatter; a
section or a continuation carries the text and its position.
"""

from __future__ import annotations

import json
from typing import Any

from backends.errors import echoed
from skills_core.codes import INVALID_ARGUMENTS, SECTION_NOT_FOUND
from skills_core.tools.results import ToolResult, tool_error
from skills_core.tools.sections import Heading, find_section, headings

MIN_PART_CHARS = 1_000
"""Fewest characters of instructions one reply carries, so reading on always progresses (a
bound smaller than a reply's fixed part is exceeded by this much at most)."""

_OUTLINE_SHARE = 4
"""The headings of the rest take at most this fraction (1/4) of the bound."""


def fit_loaded(
    loaded: ToolResult, max_chars: int, *, section: Any = None, offset: Any = None
) -> ToolResult:
    """``loaded`` (a whole ``load_skill`` result) as one part of at most ``max_chars``.

    Args:
        loaded: The whole result, with all of its ``instructions``.
        max_chars: The bound on the reply's JSON length.
        section: A heading (its title or whole line): reply with that section.
        offset: A character offset into the instructions: reply with the text from there.
    """
    name, text = loaded["skill_name"], loaded["instructions"]
    if section is None and offset is None and _size(loaded) <= max_chars:
        return loaded  # it fits: nothing to cut, no headings to find
    found = headings(text)
    base: ToolResult = {"skill_name": name}
    if section is not None and offset is not None:
        return tool_error(INVALID_ARGUMENTS, "give 'section' or 'offset', not both")
    if section is not None:
        if not isinstance(section, str) or not section.strip():
            return tool_error(INVALID_ARGUMENTS, "argument 'section' must be a heading")
        match = find_section(found, section, len(text))
        if match is None:
            outline, _ = _outline(found, max_chars // _OUTLINE_SHARE)
            message = f"skill {name!r} has no section {echoed(section)!r}"
            return tool_error(SECTION_NOT_FOUND, message, sections=outline)
        heading, end = match
        start = heading.offset
        base["section"] = heading.label
    elif offset is not None:
        asked = whole_number(offset)
        if asked is None or not 0 <= asked < max(len(text), 1):
            message = f"argument 'offset' must be a whole number from 0 to {len(text) - 1}"
            return tool_error(INVALID_ARGUMENTS, message)
        start, end = asked, len(text)
    else:
        start, end = 0, len(text)
        base = {key: value for key, value in loaded.items() if key != "instructions"}
    return _part(base, text, found, (start, end), max_chars)


def _part(
    base: ToolResult, text: str, found: list[Heading], span: tuple[int, int], max_chars: int
) -> ToolResult:
    """The reply holding as much of ``text[start:end]`` as ``max_chars`` allows."""
    start, end = span
    fixed = _size(_reply(base, text, found, (start, start, end), max_chars))
    budget = max_chars - fixed
    while True:
        cut = _cut(text, found, start, end, budget)
        reply = _reply(base, text, found, (start, cut, end), max_chars)
        excess = _size(reply) - max_chars
        if excess <= 0 or cut - start <= MIN_PART_CHARS:
            return reply
        budget -= excess


def _reply(
    base: ToolResult,
    text: str,
    found: list[Heading],
    span: tuple[int, int, int],
    max_chars: int,
) -> ToolResult:
    """The reply showing ``text[start:cut]`` of a part that runs to ``end``."""
    start, cut, end = span
    total, shown = len(text), cut - start
    reply: ToolResult = {
        **base,
        "instructions": text[start:cut],
        "offset": start,
        "total_chars": total,
        "left_out_chars": total - shown,
    }
    if cut >= end:
        return reply
    rest = [heading for heading in found if cut <= heading.offset < end]
    outline, omitted = _outline(rest, max_chars // _OUTLINE_SHARE)
    reply.update(next_offset=cut, sections=outline)
    note = (
        f"Showing characters {start:,}-{cut:,} of {total:,}; {total - shown:,} are left out. "
        f"Call this tool again with offset={cut} to read on, or with section set to a heading "
        "of 'sections' to read that section."
    )
    if omitted:
        reply["sections_left_out"] = omitted
        note += (
            f" {omitted} headings are not listed (the deepest first); a section's reply "
            "lists its own."
        )
    reply["note"] = note
    return reply


def _cut(text: str, found: list[Heading], start: int, end: int, budget: int) -> int:
    """Where a part from ``start`` ends: within ``budget`` JSON characters, at a boundary.

    The longest piece that fits, cut back to its last heading, blank line or line break in
    its second half; never fewer than :data:`MIN_PART_CHARS` characters (or all that is left).
    """
    low, high = 0, end - start  # the longest piece that fits has a length in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if _size(text[start : start + middle]) - 2 <= budget:
            low = middle
        else:
            high = middle - 1
    limit = start + max(low, min(MIN_PART_CHARS, end - start))
    if limit >= end:
        return end
    half = start + (limit - start) // 2
    boundaries = [heading.offset for heading in found if half < heading.offset <= limit]
    if boundaries:
        return boundaries[-1]
    for mark in ("\n\n", "\n"):
        at = text.rfind(mark, half, limit)
        if at >= 0:
            return at + len(mark)
    return limit


def _outline(found: list[Heading], limit: int) -> tuple[list[str], int]:
    """The heading labels of ``found`` within ``limit`` JSON characters, and how many are not.

    Deeper levels go first; if even the top level does not fit, its first headings do.
    """
    for depth in range(6, 0, -1):
        lines = [heading.label for heading in found if heading.level <= depth]
        if lines and _size(lines) <= limit:
            return lines, len(found) - len(lines)
    top = min((heading.level for heading in found), default=1)
    lines, used = [], 2  # the brackets
    for heading in found:
        cost = _size(heading.label) + 2  # the label and its ", "
        if heading.level == top and used + cost <= limit:
            lines.append(heading.label)
            used += cost
    return lines, len(found) - len(lines)


def whole_number(value: Any) -> int | None:
    """``value`` as an int when it is one (JSON numbers may arrive as ``5.0``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if type(value) is int else None


def _size(value: Any) -> int:
    """How many characters ``value`` takes as the JSON a model receives."""
    return len(json.dumps(value, ensure_ascii=False))
