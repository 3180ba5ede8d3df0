"""``skillfs lock [URL] [-o FILE] [--check | --update NAME]``: pin skills by content.

Writes the lock of :mod:`skills_core.catalog.lock` for every skill ``skillfs list`` serves;
``--check`` lists what differs from the lock (exit 1), a CI gate; ``--update NAME`` re-pins one
skill and leaves the others as locked. Without a URL, ``--check`` and ``--update`` read the
source the lock records.
"""

from __future__ import annotations

import argparse

from backends.errors import echoed
from skills_core.catalog.lock import DEFAULT_LOCK_FILE, SkillLock
from skills_core.catalog.lock_build import lock_of
from skills_core.cli import exits, running
from skills_core.cli.output import plural, report_catalog
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import print_message, printable


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--check`` and ``--update``."""
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


def run(args: argparse.Namespace) -> int:
    """Write, check or update the lock file."""
    locked = SkillLock.read(args.output) if args.check or args.update else None
    url = args.url if args.url is not None or locked is None else locked.source
    catalog = running.run(load_catalog(open_source(url), cache=False))
    if report_catalog(catalog):
        return exits.USAGE
    current = running.run(lock_of(catalog))
    where = printable(args.output)
    if locked is None:
        current.write(args.output)
        files = sum(len(skill.files) for skill in current.skills.values())
        print(f"wrote {where}: {plural(len(current.skills), 'skill')}, {plural(files, 'file')}")
        return exits.OK
    if args.update:
        if args.update not in current.skills and args.update not in locked.skills:
            print_message("error", args.output, f"no skill named {echoed(args.update)!r} to pin")
            return exits.USAGE
        locked.pinning(args.update, current).write(args.output)
        done = "re-pinned {} in {}" if args.update in current.skills else "removed {} from {}"
        print(done.format(printable(args.update), where))
        return exits.OK
    differences = locked.differences(current)
    for line in differences:
        print(printable(line))
    if differences:
        message = f"the source differs from the lock ({plural(len(differences), 'difference')})"
        print_message("error", args.output, message)
        return exits.INVALID
    print(f"{where} matches {printable(current.source)}: {plural(len(locked.skills), 'skill')}")
    return exits.OK
