"""``skillfs publish [URL] -o OUT [--strict] [--skip-invalid] [--json]``: a well-known index.

Writes below the folder or bucket OUT what ``skillfs bundle`` would pack, as the agentskills.io
discovery layout (:mod:`skills_core.bundle.publish`): ``.well-known/agent-skills/index.json``
and one deterministic artifact per skill, for any static host or bucket to serve. Refused
skills stop it with exit code 1 unless ``--skip-invalid`` leaves them out; nothing is written
then. A progress bar is drawn on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from backends.base import Backend
from backends.index.document import INDEX_PATH
from backends.remote.urls import join_location
from skills_core.bundle.output import check_output
from skills_core.bundle.publish import Publication, build_publication, write_publication
from skills_core.bundle.writer import Progress
from skills_core.cli import exits
from skills_core.cli.commands.bundle import Misplaced, print_refused, skill_names
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


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--strict``, ``--skip-invalid`` and ``--json``."""
    add_url_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the folder or bucket to publish to: a local folder or any fsspec URL "
        "(s3://bucket/site); the index goes to OUT/" + INDEX_PATH,
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="publish what 'skillfs validate' passes (default: what 'skillfs list' serves)",
    )
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="leave refused skills out (each problem printed as a warning) instead of stopping",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Publish and summarize; exit 1, writing nothing, when a skill is refused."""
    source = open_source(args.url)
    try:
        published = _publish(source, args.output, strict=args.strict, skip=args.skip_invalid)
    except InvalidSkillsError as exc:
        print_refused(source.location, exc.problems)
        return exits.INVALID
    if isinstance(published, Misplaced):
        hint = elsewhere_hint(source.location, published.folders)
        print_message("error", source.location, f"nothing written: no skills found; {hint}")
        return exits.USAGE
    print_problems((), (*published.skipped, *published.warnings))
    if not published.skills:
        print_message("warning", source.location, "the index lists no skills")
    if args.json:
        print_json(_record(source, published))
    else:
        print(_summary(published))
    return exits.OK


def _publish(source: Backend, out: str, *, strict: bool, skip: bool) -> Publication | Misplaced:
    """Publish ``source`` below ``out``, unless its skills all sit in hidden or nested folders."""

    async def publication(progress: Progress | None) -> Publication | Misplaced:
        await asyncio.to_thread(check_output, out, source.location, folder=True)
        built = await build_publication(source, strict=strict, skip_invalid=skip, progress=progress)
        if not built.skills and not built.skipped:
            folders = await skill_folders_elsewhere(source)
            if folders:
                return Misplaced(folders)
        return await write_publication(built, out)

    with progress_bar(sys.stderr) as progress:
        return asyncio.run(publication(progress))


def _summary(published: Publication) -> str:
    index = join_location(published.location or "", INDEX_PATH)
    artifacts = len(published.files) - 1
    size = sum(len(data) for data in published.files.values())
    line = (
        f"published {plural(len(published.skills), 'skill')} to {printable(index)}: "
        f"the index and {plural(artifacts, 'artifact')}, {plural(size, 'byte')}"
    )
    skipped = skill_names(published.skipped)
    if skipped:
        names = ", ".join(map(printable, skipped))
        line += f"; skipped {plural(len(skipped), 'invalid skill')}: {names}"
    return line


def _record(source: Backend, published: Publication) -> dict[str, Any]:
    return {
        "source": source.location,
        "location": published.location,
        "index": join_location(published.location or "", INDEX_PATH),
        "skills": list(published.skills),
        "files": {path: len(data) for path, data in published.files.items()},
        "skipped": problems_record(published.skipped),
        "warnings": problems_record(published.warnings),
    }
