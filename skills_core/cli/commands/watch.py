"""``skillfs watch [URL] [--interval S] [--json] [--no-cache]``: one line per reload until Ctrl-C.

Local folders are watched for filesystem events (with ``agent-skillfs[watch]``); other sources are
polled every ``--interval`` seconds. Each reload prints what was added, changed or removed;
problems not printed before go to stderr. Ctrl-C ends the command with exit code 0. The first
load starts from the catalog cache, as other commands do (``--no-cache``: it reads every skill).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from backends.base import Backend
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.snapshot import ReloadReport
from skills_core.cli import exits, running
from skills_core.cli.arguments import positive_seconds
from skills_core.cli.output import add_json_flag, plural, problem_line
from skills_core.cli.source import add_cache_flag, add_lock_flag, add_url_argument, open_root
from skills_core.cli.terminal import Style, printable
from skills_core.format.problems import SkillProblem
from skills_core.trust.policy import TrustPolicy


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--interval``, ``--json`` and ``--no-cache``."""
    add_url_argument(parser, skill_folder=False)
    add_lock_flag(parser)
    parser.add_argument(
        "--interval",
        type=positive_seconds,
        default=2.0,
        metavar="S",
        help="seconds between polls of sources without filesystem events (default: 2)",
    )
    add_json_flag(parser)
    add_cache_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Watch until Ctrl-C (exit 0); exit 2 when the first listing fails."""
    backend = open_root(args.url)
    try:
        watching = _watch(
            backend, interval=args.interval, as_json=args.json, lock=args.lock, cache=args.cache
        )
        return running.run(watching)
    except KeyboardInterrupt:
        return exits.OK


async def _watch(
    backend: Backend, *, interval: float, as_json: bool, lock: str | None, cache: bool
) -> int:
    catalog = SkillCatalog(backend, trust=TrustPolicy(lock=lock), cache=cache)
    printed: set[SkillProblem] = set()
    first = True
    async for report in catalog.watch(interval=interval):
        printed = _print_new_problems(report, printed)
        if first and report.failure is not None:
            return exits.USAGE
        line = json.dumps(report.to_dict()) if as_json else describe(report, first=first)
        print(line, flush=True)
        first = False
    return exits.OK


def describe(report: ReloadReport, *, first: bool = False) -> str:
    """One line for a reload: what changed, then how many skills, errors and warnings."""
    loaded = len(report.added) + len(report.changed) + len(report.unchanged)
    counts = (
        f"{plural(loaded, 'skill')}, {plural(len(report.errors), 'error')}, "
        f"{plural(len(report.warnings), 'warning')}"
    )
    if report.failure is not None:
        what = printable(report.failure.message)
    elif first:
        what = "loaded"
    else:
        changes = zip(
            ("added", "changed", "removed"),
            (report.added, report.changed, report.removed),
            strict=True,
        )
        what = "; ".join(
            f"{verb} {', '.join(map(printable, names))}" for verb, names in changes if names
        )
        what = what or "problems changed"
    return f"[{time.strftime('%H:%M:%S')}] {what}: {counts}"


def _print_new_problems(report: ReloadReport, printed: set[SkillProblem]) -> set[SkillProblem]:
    """Print the problems not printed for the previous reload; return the current set."""
    failure = () if report.failure is None else (report.failure,)
    style = Style.of(sys.stderr)
    for kind, problems in (("error", (*failure, *report.errors)), ("warning", report.warnings)):
        for problem in problems:
            if problem not in printed:
                print(problem_line(kind, problem, style=style), file=sys.stderr, flush=True)
    return {*failure, *report.errors, *report.warnings}
