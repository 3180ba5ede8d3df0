"""``skillfs publish [URL] -o OUT [--strict] [--skip-invalid] [--json]``: a well-known index.

Writes below the folder or bucket OUT what ``skillfs bundle`` would pack, as the agentskills.io
discovery layout (:mod:`skills_core.bundle.publish`): ``.well-known/agent-skills/index.json``
and one deterministic artifact per skill, for any static host or bucket to serve, then removes
the files of the publication it replaced that the new index no longer lists. Refused
skills stop it with exit code 1 unless ``--skip-invalid`` leaves them out; nothing is written
then. A progress bar is drawn on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
from typing import Any

from backends.base import Backend
from backends.index.document import INDEX_PATH
from backends.remote.urls import join_location
from skills_core.bundle.publish import Publication, build_publication, write_publication
from skills_core.bundle.writer import Progress
from skills_core.cli.output import plural, problems_record
from skills_core.cli.packing import Packing, add_verdict_options, run_packing, skipped_suffix
from skills_core.cli.source import add_url_argument
from skills_core.cli.terminal import printable


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
    add_verdict_options(parser, verb="publish")


def run(args: argparse.Namespace) -> int:
    """Publish and summarize; exit 1, writing nothing, when a skill is refused."""
    return run_packing(args, PUBLISHING)


async def _build(
    source: Backend, strict: bool, skip_invalid: bool, progress: Progress | None
) -> Publication:
    return await build_publication(
        source, strict=strict, skip_invalid=skip_invalid, progress=progress
    )


def _summary(published: Publication) -> str:
    index = join_location(published.location or "", INDEX_PATH)
    artifacts = len(published.files) - 1
    size = sum(len(data) for data in published.files.values())
    return (
        f"published {plural(len(published.skills), 'skill')} to {printable(index)}: "
        f"the index and {plural(artifacts, 'artifact')}, {plural(size, 'byte')}"
        f"{_removed_suffix(published.removed)}{skipped_suffix(published.skipped)}"
    )


def _removed_suffix(removed: tuple[str, ...]) -> str:
    return f"; removed {plural(len(removed), 'file')} it no longer lists" if removed else ""


def _record(source: Backend, published: Publication) -> dict[str, Any]:
    return {
        "source": source.location,
        "location": published.location,
        "index": join_location(published.location or "", INDEX_PATH),
        "skills": list(published.skills),
        "files": {path: len(data) for path, data in published.files.items()},
        "removed": list(published.removed),
        "skipped": problems_record(published.skipped),
        "warnings": problems_record(published.warnings),
    }


PUBLISHING = Packing(
    _build,
    write_publication,
    folder=True,
    empty="the index lists no skills",
    summary=_summary,
    record=_record,
)
