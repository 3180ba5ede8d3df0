"""A skill's instructions as markdown sections: its headings, and the span of each.

Headings are ATX lines (``#`` to ``######`` then a space); lines inside fenced code blocks
(```` ``` ```` or ``~~~``) are not headings. A section runs from its heading to the next
heading of the same or a higher level. A title that repeats is numbered from its second
heading on (``## Usage#2``), so every section has a name of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_NUMBERED = re.compile(r"(.*?)#(\d+)")


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading of a text.

    Attributes:
        line: The heading line as written, e.g. ``"## Forms"``.
        title: Its text without the ``#`` marks.
        level: 1 for ``#`` to 6 for ``######``.
        offset: Where its line starts, in characters.
        occurrence: 1 for the first heading of its title, 2 for the second, and so on.
    """

    line: str
    title: str
    level: int
    offset: int
    occurrence: int = 1

    @property
    def label(self) -> str:
        """How replies name it: its line, or ``## Usage#2`` for the second ``Usage``."""
        if self.occurrence == 1:
            return self.line
        return f"{'#' * self.level} {self.title}#{self.occurrence}"


def headings(text: str) -> list[Heading]:
    """Every heading of ``text`` outside fenced code blocks, in order."""
    found: list[Heading] = []
    seen: Counter[str] = Counter()
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
            level, title = len(match.group(1)), match.group(2)
            key = _key(title)
            seen[key] += 1
            found.append(Heading(bare.strip(), title, level, offset, seen[key]))
        offset += len(line)
    return found


def find_section(found: list[Heading], wanted: str, length: int) -> tuple[Heading, int] | None:
    """The heading ``wanted`` names and where its section ends; ``None`` when none does.

    ``wanted`` is a heading's title or its whole line (``"Forms"`` or ``"## Forms"``),
    compared without case or repeated spaces: the first heading of that title. A repeated
    title's later headings are named by their :attr:`Heading.label` (``"## Usage#2"``, or
    ``"Usage#2"``); a heading whose own title is ``wanted`` comes first.
    """
    index = _index(found, _key(wanted), 1)
    if index is None and (numbered := _NUMBERED.fullmatch(wanted.strip())):
        index = _index(found, _key(numbered.group(1)), int(numbered.group(2)))
    if index is None:
        return None
    heading = found[index]
    later = (other for other in found[index + 1 :] if other.level <= heading.level)
    return heading, next((other.offset for other in later), length)


def _index(found: list[Heading], key: str, occurrence: int) -> int | None:
    """Where the ``occurrence``-th heading titled ``key`` is in ``found``."""
    for index, heading in enumerate(found):
        if heading.occurrence == occurrence and _key(heading.title) == key:
            return index
    return None


def _key(title: str) -> str:
    return " ".join(title.strip().lstrip("#").split()).casefold()
