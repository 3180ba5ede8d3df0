r"""What the CLI prints: text from skills made harmless, colour, tables, JSON and progress bars.

Folder names, descriptions, licenses, metadata and messages quoting them come from skills,
which may be hostile: an escape sequence can set the window title or fake a link, a carriage
return can overwrite what was printed, a newline in a folder name can forge an ``error:``
line. :func:`printable` shows each such character as a visible escape (``\x1b``, ``\r``,
``\n``, ``\u202e``) before anything is printed; ``--json`` output is exact instead (JSON
escapes control characters itself). Colour (:class:`Style`) is added after escaping, only on a
terminal, with ``NO_COLOR`` unset or empty and ``TERM`` not ``dumb``. Problems go to stderr,
one line each. Long work draws a progress bar on stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from skills_core.format.models import SkillProblem

_OTHER_UNSAFE = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""DEL, C1 controls, line and paragraph separators, and the bidirectional overrides and
isolates that reorder what a terminal shows."""

_SINGLE_LINE = re.compile(f"[\x00-\x1f{_OTHER_UNSAFE}]")
_MULTILINE = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER_UNSAFE}]")  # keeps tab and newline
_JSON_RAW = re.compile(f"[{_OTHER_UNSAFE}]")  # json.dumps escapes C0 controls itself
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character shown as a visible escape.

    Args:
        text: Text that may come from a skill.
        multiline: Keep newlines and tabs (for a skill's body); everything else is escaped.
    """
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
    """Colour and emphasis for one output stream, or plain text when it has none.

    Args:
        enabled: Whether to add ANSI escape sequences.
    """

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

    def error(self, text: str) -> str:
        """Bold red: an error's label."""
        return self._sgr("1;31", text)

    def warning(self, text: str) -> str:
        """Bold yellow: a warning's label."""
        return self._sgr("1;33", text)

    def ok(self, text: str) -> str:
        """Green: a passed check."""
        return self._sgr("32", text)

    def name(self, text: str) -> str:
        """Bold cyan: a skill's name."""
        return self._sgr("1;36", text)

    def heading(self, text: str) -> str:
        """Bold: a table's header."""
        return self._sgr("1", text)

    def dim(self, text: str) -> str:
        """Dim: secondary detail, such as a problem's code."""
        return self._sgr("2", text)

    def label(self, kind: str) -> str:
        """``error:`` or ``warning:`` (any other kind is left plain), styled."""
        styled = {"error": self.error, "warning": self.warning}.get(kind)
        return styled(f"{kind}:") if styled else f"{kind}:"


def message_line(
    kind: str, location: str | None, message: str, *, code: str | None = None, style: Style
) -> str:
    """``<kind>: <location>: <message> [<CODE>]``, escaped, the label and code styled."""
    parts = [style.label(kind)]
    if location:
        parts.append(f"{printable(location)}:")
    parts.append(printable(message))
    if code:
        parts.append(style.dim(f"[{code}]"))
    return " ".join(parts)


def print_message(
    kind: str, location: str | None, message: str, *, code: str | None = None
) -> None:
    """Print one ``error:`` or ``warning:`` line to stderr."""
    style = Style.of(sys.stderr)
    print(message_line(kind, location, message, code=code, style=style), file=sys.stderr)


def problem_line(kind: str, problem: SkillProblem, *, style: Style) -> str:
    """``<kind>: <location>: <message> [<CODE>]`` for a problem."""
    return message_line(kind, problem.location, problem.message, code=problem.code, style=style)


def print_problems(errors: Iterable[SkillProblem], warnings: Iterable[SkillProblem] = ()) -> None:
    """Print errors, then warnings, one line each, to stderr."""
    for problem in errors:
        print_message("error", problem.location, problem.message, code=problem.code)
    for problem in warnings:
        print_message("warning", problem.location, problem.message, code=problem.code)


class PrintableFormatter(logging.Formatter):
    """Log records for a terminal: each record one line, control characters escaped."""

    def format(self, record: logging.LogRecord) -> str:
        """The formatted record, through :func:`printable`."""
        return printable(super().format(record))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON document instead of text."""
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts instead of text"
    )


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON; values JSON lacks (dates) are printed as text.

    The data is exact; what JSON leaves raw but a terminal acts on (DEL, C1 controls, line
    separators, bidirectional overrides) is written as JSON's four-hex-digit escapes.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    print(_JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", text))


def problems_record(problems: Iterable[SkillProblem]) -> list[dict[str, Any]]:
    """Problems for JSON output."""
    return [problem.to_dict() for problem in problems]


CellStyle = Callable[[str], str]
"""Colour for one table cell (a :class:`Style` method)."""

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
    """Align ``rows`` in columns; the last column is cut to fit ``width``.

    Args:
        rows: Cells of equal count per row; control characters in a cell are shown
            escaped (collapse prose with :func:`one_line` first).
        width: The line width; default: the terminal's (``COLUMNS`` when set).
        styles: Colour per column (for the rows after the header, when there is one).
        header: Colour for the first row's cells, which are then a header.
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
"""Cells in a progress bar."""

BAR_INTERVAL = 0.1
"""Seconds between redraws of a progress bar; the last step is always drawn."""


class ProgressBar:
    """``[#########                     ] 120/400 skills``, redrawn in place on a terminal.

    Call it with ``(done, total)``, as :func:`skills_core.bundle.writer.write_bundle` calls its
    ``progress``; :meth:`close` ends the line once anything was drawn.

    Args:
        stream: Where to draw it, a terminal.
        noun: What is counted.
    """

    def __init__(self, stream: TextIO, *, noun: str = "skills") -> None:
        self._stream = stream
        self._noun = noun
        self._drawn_at: float | None = None

    def __call__(self, done: int, total: int) -> None:
        """Redraw the bar, unless it was drawn under :data:`BAR_INTERVAL` ago and is not full."""
        now = time.monotonic()
        if done < total and self._drawn_at is not None and now - self._drawn_at < BAR_INTERVAL:
            return
        self._drawn_at = now
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        self._stream.write(f"\r[{'#' * filled:<{BAR_WIDTH}}] {done}/{total} {self._noun}")
        self._stream.flush()

    def close(self) -> None:
        """End the bar's line, so what is printed next starts on its own line."""
        if self._drawn_at is not None:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn_at = None


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``-q/--quiet``: no progress bar, even on a terminal."""
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="draw no progress bar on a terminal"
    )


@contextmanager
def progress_bar(
    stream: TextIO, *, noun: str = "skills", quiet: bool = False
) -> Iterator[ProgressBar | None]:
    """A :class:`ProgressBar` on ``stream`` if it is a terminal (and not ``quiet``), else ``None``.

    The bar's line is ended on exit, also when the work fails or is interrupted.
    """
    if quiet or not stream.isatty():
        yield None
        return
    bar = ProgressBar(stream, noun=noun)
    try:
        yield bar
    finally:
        bar.close()
