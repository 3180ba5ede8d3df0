"""``skillfs lock [URL] [-o FILE] [--check | --update NAME] [--json] [-q]``: pin by content.

Writes the lock of :mod:`skills_core.trust.lock` for every skill ``skillfs list`` serves;
``--check`` lists what differs from the lock (exit 1), a CI gate; ``--update NAME`` re-pins one
skill and leaves the others as locked. Without a URL, ``--check`` and ``--update`` read the
source the lock records. On a terminal, progress bars count the SKILL.md files read and the
skills hashed (not with ``--quiet``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from backends.errors import echoed
from skills_core.cli import exits, running
from skills_core.cli.output import add_json_flag, plural, print_json, report_catalog
from skills_core.cli.progress import add_quiet_flag, progress_bar
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import print_message, printable
from skills_core.trust.lock import DEFAULT_LOCK_FILE, SkillLock, lock_of


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--check``, ``--update``, ``--json`` and ``--quiet``."""
    add_url_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_LOCK_FILE,
        metavar="FILE",
        help=f"the lock file to write, check or update (default: {DEFAULT_LOCK_FILE})",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="list what the source changed since FILE was written; exit 1 if anything did",
    )
    mode.add_argument("--update", metavar="NAME", help="re-pin skill NAME in FILE")
    add_json_flag(parser)
    add_quiet_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Write, check or update the lock file."""
    locked = SkillLock.read(args.output) if args.check or args.update else None
    url = args.url if args.url is not None or locked is None else locked.source
    with progress_bar(sys.stderr, noun="SKILL.md files read", quiet=args.quiet) as read:
        catalog = running.run(load_catalog(open_source(url), cache=False, progress=read))
    if report_catalog(catalog):
        return exits.USAGE
    with progress_bar(sys.stderr, noun="skills hashed", quiet=args.quiet) as hashed:
        current = running.run(lock_of(catalog, hashed))
    if locked is None:
        return _write(args, current)
    if args.update:
        return _update(args, locked, current)
    return _check(args, locked, current)


def _write(args: argparse.Namespace, current: SkillLock) -> int:
    current.write(args.output)
    files = sum(len(skill.files) for skill in current.skills.values())
    if args.json:
        print_json({**_record(args, current), "skills": sorted(current.skills), "files": files})
    else:
        skills = plural(len(current.skills), "skill")
        print(f"wrote {printable(args.output)}: {skills}, {plural(files, 'file')}")
    return exits.OK


def _update(args: argparse.Namespace, locked: SkillLock, current: SkillLock) -> int:
    name = args.update
    if name not in current.skills and name not in locked.skills:
        print_message("error", args.output, f"no skill named {echoed(name)!r} to pin")
        return exits.USAGE
    locked.pinning(name, current).write(args.output)
    pinned = name in current.skills
    if args.json:
        print_json({**_record(args, current), "name": name, "pinned": pinned})
    else:
        done = "re-pinned {} in {}" if pinned else "removed {} from {}"
        print(done.format(printable(name), printable(args.output)))
    return exits.OK


def _check(args: argparse.Namespace, locked: SkillLock, current: SkillLock) -> int:
    differences = locked.differences(current)
    if args.json:
        print_json({**_record(args, current), "differences": differences})
    else:
        for line in differences:
            print(printable(line))
    if differences:
        message = f"the source differs from the lock ({plural(len(differences), 'difference')})"
        print_message("error", args.output, message)
        return exits.INVALID
    if not args.json:
        where, source = printable(args.output), printable(current.source)
        print(f"{where} matches {source}: {plural(len(locked.skills), 'skill')}")
    return exits.OK


def _record(args: argparse.Namespace, current: SkillLock) -> dict[str, Any]:
    return {"path": args.output, "source": current.source}
