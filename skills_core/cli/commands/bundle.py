"""``skillfs bundle [URL] -o OUT [--strict] [--skip-invalid] [--json]``: skills in one zip.

Packs what ``skillfs list`` serves (skills loaded with warnings included), or with
``--strict`` what ``skillfs validate`` passes, into the deterministic zip of
:mod:`skills_core.bundle.writer` (same skills, same bytes), written to a local path or any
fsspec URL but never inside the source. Refused skills stop the bundle with exit code 1 unless
``--skip-invalid`` leaves them out. A progress bar is drawn on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from backends import write_bytes
from backends.base import Backend
from skills_core.bundle.output import check_output
from skills_core.bundle.writer import Bundle, Progress, build_bundle
from skills_core.cli import exits
from skills_core.cli.discovery import elsewhere_hint, skill_folders_elsewhere
from skills_core.cli.output import (
    add_json_flag,
    plural,
    print_json,
    print_problems,
    problems_record,
)
from skills_core.cli.progress import progress_bar
from skills_core.cli.source import add_url_argument, open_source
from skills_core.cli.terminal import print_message, printable
from skills_core.errors import InvalidSkillsError
from skills_core.format.problems import SkillProblem


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--strict``, ``--skip-invalid`` and ``--json``."""
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
        "--strict",
        action="store_true",
        help="bundle what 'skillfs validate' passes: any spec violation refuses a skill "
        "(default: what 'skillfs list' serves, skills with warnings included)",
    )
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="leave refused skills out (each problem printed as a warning) instead of stopping",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Write the bundle and summarize it; exit 1, writing nothing, when a skill is refused."""
    source = open_source(args.url)
    try:
        bundle = _write(source, args.output, strict=args.strict, skip_invalid=args.skip_invalid)
    except InvalidSkillsError as exc:
        print_problems(exc.problems)
        print_message(
            "error",
            source.location,
            f"nothing written: {plural(len(_names(exc.problems)), 'invalid skill')}; "
            "fix them, or pass --skip-invalid to leave them out",
        )
        return exits.INVALID
    if isinstance(bundle, Misplaced):
        hint = elsewhere_hint(source.location, bundle.folders)
        print_message("error", source.location, f"nothing written: no skills found; {hint}")
        return exits.USAGE
    print_problems((), (*bundle.skipped, *bundle.warnings))
    if not bundle.skills:
        print_message("warning", source.location, "the bundle holds no skills")
    if args.json:
        print_json(_record(source, bundle))
    else:
        print(_summary(bundle))
    return exits.OK


class Misplaced(NamedTuple):
    """The source holds no skill, but these folders of it do: nothing was written."""

    folders: Sequence[str]


def _write(source: Backend, out: str, *, strict: bool, skip_invalid: bool) -> Bundle | Misplaced:
    """Bundle ``source`` into ``out``, unless its skills all sit in hidden or nested folders."""

    async def bundle(progress: Progress | None) -> Bundle | Misplaced:
        await asyncio.to_thread(check_output, out, source.location)
        built = await build_bundle(
            source, strict=strict, skip_invalid=skip_invalid, progress=progress
        )
        if not built.skills and not built.skipped:
            folders = await skill_folders_elsewhere(source)
            if folders:
                return Misplaced(folders)
        return replace(built, location=await write_bytes(out, built.data))

    with progress_bar(sys.stderr) as progress:
        return asyncio.run(bundle(progress))


def _names(problems: Iterable[SkillProblem]) -> list[str]:
    """The skills ``problems`` are about, sorted."""
    return sorted({problem.subject for problem in problems})


def _summary(bundle: Bundle) -> str:
    line = (
        f"wrote {printable(bundle.location or '')}: {plural(len(bundle.skills), 'skill')}, "
        f"{plural(bundle.files, 'file')}, {plural(len(bundle.data), 'byte')}, "
        f"sha256 {bundle.sha256}"
    )
    skipped = _names(bundle.skipped)
    if skipped:
        names = ", ".join(map(printable, skipped))
        line += f"; skipped {plural(len(skipped), 'invalid skill')}: {names}"
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
        "warnings": problems_record(bundle.warnings),
    }
