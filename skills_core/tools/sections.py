"""A skill's instructions as markdown sections: its headings, and the span of each.

Headings are ATX lines (``#`` to ``######`` then a space); lines inside fenced code blocks
(```` ``` ```` or ``~~~``) are not headings. A section runs from its heading to the next
heading of the same or a higher level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading of a text.

    Attributes:
        line: The heading line as written, e.g. ``"## Forms"``.
        title: Its text without the ``#`` marks.
        level: 1 for ``#`` to 6 for ``######``.
        offset: Where its line starts, in characters.
    """

    line: str
    title: str
    level: int
    offset: int


def headings(text: str) -> list[Heading]:
    """Every heading of ``text`` outside fenced code blocks, in order."""
    found: list[Heading] = []
    fence = ""
    offset = 0
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if opening := _FENCE.match(bare):
            marks = opening.group(1)
            if not fence:
                fence = marks
            elif marks[0] == fence[0] and len(marks) >= len(fence):
                fence = ""
        elif not fence and (match := _HEADING.match(bare)):
            level = len(match.group(1))
            found.append(Heading(bare.strip(), match.group(2), level, offset))
        offset += len(line)
    return found


def find_section(found: list[Heading], wanted: str, length: int) -> tuple[Heading, int] | None:
    """The heading ``wanted`` names and where its section ends; ``None`` when none does.

    ``wanted`` is a heading's title or its whole line (``"Forms"`` or ``"## Forms"``),
    compared without case or repeated spaces; the first heading that matches wins.
    """
    key = _key(wanted)
    for index, heading in enumerate(found):
        if _key(heading.title) == key:
            later = (other for other in found[index + 1 :] if other.level <= heading.level)
            return heading, next((other.offset for other in later), length)
    return None


def _key(title: str) -> str:
    return " ".join(title.strip().lstrip("#").split()).casefold()
