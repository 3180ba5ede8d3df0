"""``skillfs bundle [URL] -o OUT [--skip-invalid] [--json]``: every skill in one zip.

Validates every skill strictly, then writes the deterministic zip of
:mod:`skills_core.bundle.writer` (same skills, same bytes) to a local path or any fsspec URL.
Invalid skills stop the bundle with exit code 1 unless ``--skip-invalid`` leaves them out.
A progress bar is drawn on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable
from typing import Any

from backends.base import Backend
from skills_core.bundle.writer import Bundle, write_bundle
from skills_core.catalog.report import SkillProblem
from skills_core.cli import exits
from skills_core.cli.output import (
    add_json_flag,
    plural,
    print_json,
    print_problems,
    problems_record,
)
from skills_core.cli.progress import progress_bar
from skills_core.cli.source import add_url_argument, open_source
from skills_core.errors import InvalidSkillsError


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--skip-invalid`` and ``--json``."""
    add_url_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the zip to create or replace: a local path or any fsspec URL "
        "(s3://bucket/skills.zip)",
    )
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="leave invalid skills out (each problem printed as a warning) instead of stopping",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Write the bundle and summarize it; exit 1, writing nothing, when a skill is invalid."""
    source = open_source(args.url)
    try:
        bundle = _write(source, args.output, skip_invalid=args.skip_invalid)
    except InvalidSkillsError as exc:
        print_problems(exc.problems)
        print(
            f"error: {source.location}: nothing written: "
            f"{plural(len(_names(exc.problems)), 'invalid skill')}; "
            "fix them, or pass --skip-invalid to leave them out",
            file=sys.stderr,
        )
        return exits.INVALID
    print_problems((), bundle.skipped)
    if not bundle.skills:
        print(f"warning: {source.location}: the bundle holds no skills", file=sys.stderr)
    if args.json:
        print_json(_record(source, bundle))
    else:
        print(_summary(bundle))
    return exits.OK


def _write(source: Backend, out: str, *, skip_invalid: bool) -> Bundle:
    """Bundle ``source`` into ``out``; a failed listing raises the listing's own error."""
    with progress_bar(sys.stderr) as progress:
        return asyncio.run(write_bundle(source, out, skip_invalid=skip_invalid, progress=progress))


def _names(problems: Iterable[SkillProblem]) -> list[str]:
    """The skills ``problems`` are about, sorted."""
    return sorted({problem.name or problem.location for problem in problems})


def _summary(bundle: Bundle) -> str:
    line = (
        f"wrote {bundle.location}: {plural(len(bundle.skills), 'skill')}, "
        f"{plural(bundle.files, 'file')}, {plural(len(bundle.data), 'byte')}, "
        f"sha256 {bundle.sha256}"
    )
    skipped = _names(bundle.skipped)
    if skipped:
        line += f"; skipped {plural(len(skipped), 'invalid skill')}: {', '.join(skipped)}"
    return line


def _record(source: Backend, bundle: Bundle) -> dict[str, Any]:
    return {
        "source": source.location,
        "location": bundle.location,
        "skills": list(bundle.skills),
        "files": bundle.files,
        "bytes": len(bundle.data),
        "sha256": bundle.sha256,
        "skipped": problems_record(bundle.skipped),
    }
