"""How commands print: aligned tables, JSON for scripts, and problems on stderr."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.report import SkillProblem
from skills_core.format.models import SkillMetadata

_GAP = "  "
_MIN_LAST_COLUMN = 20
_ELLIPSIS = "..."


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON document instead of text."""
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts instead of text"
    )


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON; values JSON lacks (dates) are printed as text."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def format_table(rows: Sequence[Sequence[str]], *, width: int | None = None) -> list[str]:
    """Align ``rows`` in columns; the last column is cut to fit ``width``.

    Args:
        rows: Cells of equal count per row; whitespace runs in a cell become one space.
        width: The line width; default: the terminal's (``COLUMNS`` when set).
    """
    cells = [[" ".join(cell.split()) for cell in row] for row in rows]
    if not cells:
        return []
    width = width or shutil.get_terminal_size().columns
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]) - 1)]
    room = max(width - sum(widths) - len(_GAP) * len(widths), _MIN_LAST_COLUMN)
    return [
        _GAP.join([*map(str.ljust, row[:-1], widths), _cut(row[-1], room)]).rstrip()
        for row in cells
    ]


def _cut(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - len(_ELLIPSIS)] + _ELLIPSIS


def problem_line(kind: str, problem: SkillProblem) -> str:
    """``<kind>: <location>: <message> [<CODE>]``."""
    return f"{kind}: {problem.location}: {problem.message} [{problem.code}]"


def print_problems(errors: Iterable[SkillProblem], warnings: Iterable[SkillProblem] = ()) -> None:
    """Print errors, then warnings, one line each, to stderr."""
    for problem in errors:
        print(problem_line("error", problem), file=sys.stderr)
    for problem in warnings:
        print(problem_line("warning", problem), file=sys.stderr)


def report_catalog(catalog: SkillCatalog) -> None:
    """Print every problem of ``catalog`` to stderr, and say so when it found no skill."""
    print_problems(catalog.errors, catalog.warnings)
    report_empty(catalog)


def report_empty(catalog: SkillCatalog) -> None:
    """Warn on stderr when ``catalog`` found no skill at all."""
    if not catalog.snapshot.entries:
        print(f"warning: {catalog.backend.location}: no skills found", file=sys.stderr)


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
