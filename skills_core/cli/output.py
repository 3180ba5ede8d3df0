"""How commands print: aligned tables, JSON for scripts, and problems on stderr.

Every text that may come from a skill goes through :func:`~skills_core.cli.terminal.printable`
before it is printed, and colour is added after that (see :mod:`skills_core.cli.terminal`).
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from skills_core.catalog.catalog import SkillCatalog
from skills_core.cli import running
from skills_core.cli.discovery import elsewhere_hint, skill_folders_elsewhere
from skills_core.cli.terminal import Style, message_line, print_message, printable, printable_json
from skills_core.format.models import SkillMetadata, SkillProblem

_GAP = "  "
_MIN_LAST_COLUMN = 20
_ELLIPSIS = "..."


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON document instead of text."""
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts instead of text"
    )


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON; values JSON lacks (dates) are printed as text.

    The data is exact; characters a terminal would act on are written as JSON escapes.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    print(printable_json(text))


CellStyle = Callable[[str], str]
"""Colour for one table cell (a :class:`Style` method)."""


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
            escaped (collapse prose with ``one_line`` first).
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
        fitted = [*row[:-1], _cut(row[-1], room)]
        colours = [header] * len(row) if index == 0 and header is not None else styles
        padded = [
            _coloured(cell, colours, column) + " " * (widths[column] - len(cell))
            for column, cell in enumerate(fitted[:-1])
        ]
        last = _coloured(fitted[-1], colours, len(fitted) - 1)
        lines.append(_GAP.join([*padded, last]).rstrip())
    return lines


def _coloured(cell: str, colours: Sequence[CellStyle | None], column: int) -> str:
    colour = colours[column] if column < len(colours) else None
    return colour(cell) if colour is not None else cell


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - len(_ELLIPSIS)] + _ELLIPSIS


def problem_line(kind: str, problem: SkillProblem, *, style: Style) -> str:
    """``<kind>: <location>: <message> [<CODE>]`` for a problem."""
    return message_line(kind, problem.location, problem.message, code=problem.code, style=style)


def print_problems(errors: Iterable[SkillProblem], warnings: Iterable[SkillProblem] = ()) -> None:
    """Print errors, then warnings, one line each, to stderr."""
    for problem in errors:
        print_message("error", problem.location, problem.message, code=problem.code)
    for problem in warnings:
        print_message("warning", problem.location, problem.message, code=problem.code)


def report_catalog(catalog: SkillCatalog) -> bool:
    """Print every problem of ``catalog`` to stderr, and say so when it found no skill.

    Returns:
        True when the source holds no skill but its hidden or nested folders do: the command
        was pointed at the wrong folder and should exit non-zero.
    """
    print_problems(catalog.errors, catalog.warnings)
    return report_empty(catalog)


def report_empty(catalog: SkillCatalog) -> bool:
    """Say on stderr when ``catalog`` found no skill at all, and where skills sit instead.

    Returns:
        True when skills sit in hidden or nested folders (printed as an error).
    """
    if catalog.snapshot.entries:
        return False
    location = catalog.backend.location
    folders = running.run(skill_folders_elsewhere(catalog.backend))
    if folders:
        print_message("error", location, f"no skills found; {elsewhere_hint(location, folders)}")
        return True
    print_message("warning", location, "no skills found")
    return False


def skill_record(catalog: SkillCatalog, metadata: SkillMetadata) -> dict[str, Any]:
    """One loaded skill for JSON output: name, description, location and all frontmatter."""
    return {
        "name": metadata.name,
        "description": metadata.description,
        "location": catalog.snapshot.loaded[metadata.name].location,
        "frontmatter": metadata.to_frontmatter(),
    }


def problems_record(problems: Iterable[SkillProblem]) -> list[dict[str, Any]]:
    """Problems for JSON output."""
    return [problem.to_dict() for problem in problems]


def describe_value(value: Any) -> str:
    """A frontmatter value on one line: lists comma-joined, mappings as ``key=value``."""
    if isinstance(value, Mapping):
        return ", ".join(f"{key}={describe_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(describe_value(item) for item in value)
    return str(value)


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
