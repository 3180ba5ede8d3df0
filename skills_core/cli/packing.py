"""What ``skillfs bundle`` and ``skillfs publish`` share: options, the run, and its report.

Both read what a catalog serves (``--strict``: what ``validate`` passes), stop with exit code 1
when a skill is refused (unless ``--skip-invalid``), write nothing when the source's skills all
sit in hidden or nested folders, draw a progress bar on a terminal, and summarize what they
wrote as a line or as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from backends.base import Backend
from skills_core.bundle.writer import check_output
from skills_core.catalog.loading import Progress
from skills_core.cli import exits, running
from skills_core.cli.discovery import elsewhere_hint, skill_folders_elsewhere
from skills_core.cli.output import add_json_flag, plural, print_json, print_problems
from skills_core.cli.progress import add_quiet_flag, progress_bar
from skills_core.cli.source import add_lock_flag, open_source
from skills_core.cli.terminal import print_message, printable
from skills_core.errors import InvalidSkillsError
from skills_core.format.models import SkillProblem


class Packed(Protocol):
    """A built bundle or publication."""

    @property
    def skills(self) -> tuple[str, ...]:
        """The skills it carries."""

    @property
    def skipped(self) -> tuple[SkillProblem, ...]:
        """Why skills were left out."""

    @property
    def warnings(self) -> tuple[SkillProblem, ...]:
        """Warnings about the skills it carries."""


P = TypeVar("P", bound=Packed)


class Packing(NamedTuple, Generic[P]):
    """How one command builds, writes and reports.

    Attributes:
        build: Builds from the source, given ``strict``, ``skip_invalid``, a progress hook and
            the ``--lock`` file.
        store: Writes what was built to the output; returns it with its location.
        folder: The output is a folder (a publication), not a file.
        empty: The warning when nothing is carried.
        summary: The line printed after writing.
        record: The ``--json`` summary, given the source.
    """

    build: Callable[[Backend, bool, bool, Progress | None, str | None], Awaitable[P]]
    store: Callable[[P, str], Awaitable[P]]
    folder: bool
    empty: str
    summary: Callable[[P], str]
    record: Callable[[Backend, P], dict[str, Any]]


class Misplaced(NamedTuple):
    """The source holds no skill, but these folders of it do: nothing was written."""

    folders: Sequence[str]


def add_verdict_options(parser: argparse.ArgumentParser, *, verb: str) -> None:
    """Add ``--strict``, ``--skip-invalid``, ``--lock``, ``--json``, ``--quiet``.

    ``verb`` names the command.
    """
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"{verb} what 'skillfs validate' passes: any spec violation refuses a skill "
        "(default: what 'skillfs list' serves, skills with warnings included)",
    )
    parser.add_argument(
        "--skip-invalid",
        action="store_true",
        help="leave refused skills out (each problem printed as a warning) instead of stopping",
    )
    add_lock_flag(parser)
    add_json_flag(parser)
    add_quiet_flag(parser)


def run_packing(args: argparse.Namespace, packing: Packing[P]) -> int:
    """Build and write, then report; exit 1, writing nothing, when a skill is refused."""
    source = open_source(args.url)
    try:
        packed = _pack(
            source,
            args.output,
            packing,
            strict=args.strict,
            skip=args.skip_invalid,
            lock=args.lock,
            quiet=args.quiet,
        )
    except InvalidSkillsError as exc:
        print_problems(exc.problems)
        refused = plural(len(skill_names(exc.problems)), "invalid skill")
        print_message(
            "error",
            source.location,
            f"nothing written: {refused}; fix them, or pass --skip-invalid to leave them out",
        )
        return exits.INVALID
    if isinstance(packed, Misplaced):
        hint = elsewhere_hint(source.location, packed.folders)
        print_message("error", source.location, f"nothing written: no skills found; {hint}")
        return exits.USAGE
    print_problems((), (*packed.skipped, *packed.warnings))
    if not packed.skills:
        print_message("warning", source.location, packing.empty)
    if args.json:
        print_json(packing.record(source, packed))
    else:
        print(packing.summary(packed))
    return exits.OK


def skipped_suffix(skipped: Iterable[SkillProblem]) -> str:
    """``; skipped 2 invalid skills: a, b`` for a summary line, or ``""``."""
    names = skill_names(skipped)
    if not names:
        return ""
    listed = ", ".join(map(printable, names))
    return f"; skipped {plural(len(names), 'invalid skill')}: {listed}"


def skill_names(problems: Iterable[SkillProblem]) -> list[str]:
    """The skills ``problems`` are about, sorted."""
    return sorted({problem.subject for problem in problems})


def _pack(
    source: Backend,
    out: str,
    packing: Packing[P],
    *,
    strict: bool,
    skip: bool,
    lock: str | None,
    quiet: bool,
) -> P | Misplaced:
    """Build and write, unless the source's skills all sit in hidden or nested folders."""

    async def pack(progress: Progress | None) -> P | Misplaced:
        await asyncio.to_thread(check_output, out, source.location, folder=packing.folder)
        built = await packing.build(source, strict, skip, progress, lock)
        if not built.skills and not built.skipped:
            folders = await skill_folders_elsewhere(source)
            if folders:
                return Misplaced(folders)
        return await packing.store(built, out)

    with progress_bar(sys.stderr, quiet=quiet) as progress:
        return running.run(pack(progress))
