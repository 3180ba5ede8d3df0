"""What the CLI prints: text from skills made harmless, colour, tables, JSON and progress bars.

Text from skills may be hostile (an escape sequence, a carriage return, a newline forging an
``error:`` line): :func:`printable` shows each control character as a visible escape before
anything is printed, and colour is added after. docs/cli.md ("Output conventions").
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partialmethod
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from skills_core._format.models import SkillProblem

_OTHER_UNSAFE = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""DEL, C1 controls, line and paragraph separators, bidirectional overrides and isolates."""

_SINGLE_LINE = re.compile(f"[\x00-\x1f{_OTHER_UNSAFE}]")
_MULTILINE = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER_UNSAFE}]")  # keeps tab and newline
_JSON_RAW = re.compile(f"[{_OTHER_UNSAFE}]")  # json.dumps escapes C0 controls itself
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, multiline: bool = False) -> str:
    """``text`` with each control character as a visible escape (``multiline``: but LF and tab)."""
    pattern = _MULTILINE if multiline else _SINGLE_LINE
    return pattern.sub(_escape, text)


def one_line(text: str) -> str:
    """Prose on one line: whitespace runs (newlines included) become a space, then escaped."""
    return printable(" ".join(text.split()))


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


class Style:
    """Colour and emphasis for one output stream (``enabled``), or plain text."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def of(cls, stream: TextIO) -> Style:
        """The style for ``stream``: colour when it is a terminal that wants it."""
        if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
            return cls(False)
        isatty = getattr(stream, "isatty", None)
        return cls(bool(isatty and isatty()))

    def _sgr(self, codes: str, text: str) -> str:
        return f"\x1b[{codes}m{text}\x1b[0m" if self.enabled and text else text

    error = partialmethod(_sgr, "1;31")  # bold red: an error's label
    warning = partialmethod(_sgr, "1;33")  # bold yellow: a warning's label
    ok = partialmethod(_sgr, "32")  # green: a passed check
    name = partialmethod(_sgr, "1;36")  # bold cyan: a skill's name
    heading = partialmethod(_sgr, "1")  # bold: a table's header
    dim = partialmethod(_sgr, "2")  # secondary detail, such as a problem's code

    def label(self, kind: str) -> str:
        """``error:`` or ``warning:`` (any other kind is left plain), styled."""
        styled = {"error": self.error, "warning": self.warning}.get(kind)
        return styled(f"{kind}:") if styled else f"{kind}:"


def print_message(
    kind: str, location: str | None, message: str, *, code: str | None = None
) -> None:
    """Print ``<kind>: <location>: <message> [<CODE>]`` to stderr, escaped and styled."""
    style = Style.of(sys.stderr)
    parts = [style.label(kind)]
    if location:
        parts.append(f"{printable(location)}:")
    parts.append(printable(message))
    if code:
        parts.append(style.dim(f"[{code}]"))
    print(" ".join(parts), file=sys.stderr)


def print_problems(errors: Iterable[SkillProblem], warnings: Iterable[SkillProblem] = ()) -> None:
    """Print errors, then warnings, one line each, to stderr."""
    for kind, problems in (("error", errors), ("warning", warnings)):
        for problem in problems:
            print_message(kind, problem.location, problem.message, code=problem.code)


class PrintableFormatter(logging.Formatter):
    """Log records for a terminal: each record one line, control characters escaped."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, through :func:`printable`."""
        return printable(super().format(record))


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON (dates as text), what a terminal acts on escaped."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    print(_JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", text))


def problems_record(problems: Iterable[SkillProblem]) -> list[dict[str, Any]]:
    """Problems for JSON output."""
    return [problem.to_dict() for problem in problems]


CellStyle = Callable[[str], str]

_GAP = "  "
_MIN_LAST_COLUMN = 20
_ELLIPSIS = "..."


def format_table(
    rows: Sequence[Sequence[str]],
    *,
    width: int | None = None,
    styles: Sequence[CellStyle | None] = (),
    header: CellStyle | None = None,
) -> list[str]:
    """Align ``rows`` (escaped) in columns, the last one cut to fit ``width`` (the terminal's).

    ``styles`` colour each column, ``header`` the first row, which is then a header.
    """
    cells = [[printable(cell) for cell in row] for row in rows]
    if not cells:
        return []
    width = width or shutil.get_terminal_size().columns
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]) - 1)]
    room = max(width - sum(widths) - len(_GAP) * len(widths), _MIN_LAST_COLUMN)
    lines = []
    for index, row in enumerate(cells):
        last = row[-1] if len(row[-1]) <= room else row[-1][: room - len(_ELLIPSIS)] + _ELLIPSIS
        colours = [header] * len(row) if index == 0 and header is not None else styles
        padded = [
            _coloured(cell, colours, column) + " " * (widths[column] - len(cell))
            for column, cell in enumerate(row[:-1])
        ]
        lines.append(_GAP.join([*padded, _coloured(last, colours, len(row) - 1)]).rstrip())
    return lines


def _coloured(cell: str, colours: Sequence[CellStyle | None], column: int) -> str:
    colour = colours[column] if column < len(colours) else None
    return colour(cell) if colour is not None else cell


def human_size(size: int) -> str:
    """``812 B``, ``2.1 KiB``, ``3.0 MiB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def plural(count: int, noun: str) -> str:
    """``1 skill``, ``2 skills``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


BAR_WIDTH = 30
BAR_INTERVAL = 0.1
"""Seconds between redraws of a progress bar; the last step is always drawn."""


@contextmanager
def progress_bar(
    stream: TextIO, *, noun: str = "skills", quiet: bool = False
) -> Iterator[Callable[[int, int], None] | None]:
    """A bar called with ``(done, total)``: ``[#####     ] 120/400 skills``, redrawn in place.

    ``None`` when ``stream`` is no terminal, or ``quiet``.
    """
    if quiet or not stream.isatty():
        yield None
        return
    drawn_at: float | None = None

    def draw(done: int, total: int) -> None:
        nonlocal drawn_at
        now = time.monotonic()
        if done < total and drawn_at is not None and now - drawn_at < BAR_INTERVAL:
            return
        drawn_at = now
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        stream.write(f"\r[{'#' * filled:<{BAR_WIDTH}}] {done}/{total} {noun}")
        stream.flush()

    try:
        yield draw
    finally:
        if drawn_at is not None:
            stream.write("\n")
            stream.flush()
