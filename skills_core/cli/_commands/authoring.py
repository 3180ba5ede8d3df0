"""Commands for a skill's author and their CI: new, validate, lock (told in docs/cli.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from backends._errors import echoed
from skills_core._catalog.catalog import Verdict, lock_of, lock_problems, verdicts_of
from skills_core._errors import SkillValidationError
from skills_core._skeleton import RESOURCE_FOLDERS, create_skeleton
from skills_core._trust.lock import DEFAULT_LOCK_FILE, SkillLock
from skills_core.cli import _exits as exits
from skills_core.cli._output import (
    Style,
    format_table,
    plural,
    print_json,
    print_message,
    print_problems,
    printable,
    progress_bar,
)
from skills_core.cli._source import (
    add_flags,
    add_url_argument,
    load_catalog,
    open_source,
    report_catalog,
    report_empty,
    run,
)


def configure_new(parser: argparse.ArgumentParser) -> None:
    """Add the name, ``--dir``, ``--description`` and ``--json``."""
    parser.add_argument(
        "name", metavar="NAME", help="the skill's name: lowercase letters, digits and hyphens"
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(),
        help="the skills folder to create it in (default: the current folder)",
    )
    parser.add_argument(
        "--description",
        help="what the skill does and when to use it (default: a sentence to replace)",
    )
    add_flags(parser, "json")


def run_new(args: argparse.Namespace) -> int:
    """Create the skeleton, or explain why not (exit 2)."""
    try:
        folder = create_skeleton(args.dir, args.name, args.description)
    except SkillValidationError as exc:
        for issue in exc.report.errors:
            print_message("error", exc.location, issue.message, code=issue.code)
        return exits.USAGE
    except FileExistsError as exc:
        print_message("error", str(exc.filename), "already exists")
        return exits.USAGE
    except OSError as exc:
        print_message("error", str(exc.filename or args.dir / args.name), str(exc.strerror))
        return exits.USAGE
    if args.json:
        print_json({"folder": str(folder), "skill_md": str(folder / "SKILL.md")})
        return exits.OK
    shown = printable(str(folder))
    print(f"created {shown}/SKILL.md and {', '.join(f'{r}/' for r in RESOURCE_FOLDERS)}")
    print(f"next: edit {shown}/SKILL.md, then run: skillfs validate {shown}")
    return exits.OK


def configure_validate(parser: argparse.ArgumentParser) -> None:
    """Add the URL (or skill folder), ``--no-cache``, ``--lock``, ``--json`` and ``--quiet``."""
    add_url_argument(parser)
    add_flags(parser, "cache", "lock", "json", "quiet")


def run_validate(args: argparse.Namespace) -> int:
    """Report every problem of every skill; exit 1 when any is an error."""
    source = open_source(args.url)
    with progress_bar(sys.stderr, noun="SKILL.md files read", quiet=args.quiet) as read:
        loading = load_catalog(source, strict=True, cache=args.cache, lock=args.lock, progress=read)
        catalog = run(loading)
    verdicts = verdicts_of(catalog)
    by_name = {verdict.name: verdict for verdict in verdicts}
    with progress_bar(sys.stderr, noun="skills checked", quiet=args.quiet) as checked:
        problems = run(lock_problems(catalog, checked))
    for problem in problems:
        by_name[problem.subject].errors.append(problem)  # only served skills have any
    for verdict in verdicts:
        print_problems(verdict.errors, verdict.warnings)
    misplaced = not verdicts and report_empty(catalog)
    valid = all(verdict.valid for verdict in verdicts)
    if args.json:
        print_json(
            {
                "source": catalog.backend.location,
                "valid": valid,
                "skills": [verdict.to_dict() for verdict in verdicts],
            }
        )
    else:
        print(_verdicts(verdicts, Style.of(sys.stdout)))
    if misplaced:
        return exits.USAGE
    return exits.OK if valid else exits.INVALID


def _verdicts(verdicts: Sequence[Verdict], style: Style) -> str:
    invalid = sum(not verdict.valid for verdict in verdicts)
    errors = sum(len(verdict.errors) for verdict in verdicts)
    warnings = sum(len(verdict.warnings) for verdict in verdicts)
    total = (
        f"{plural(len(verdicts), 'skill')} checked: {len(verdicts) - invalid} valid, "
        f"{invalid} invalid ({plural(errors, 'error')}, {plural(warnings, 'warning')})"
    )
    if not verdicts:
        return total

    def status(text: str) -> str:
        return style.ok(text) if text == "ok" else style.error(text)

    rows = [("STATUS", "SKILL", "PROBLEMS")]
    for verdict in verdicts:
        skill = verdict.name
        if verdict.folder != verdict.name:
            skill += f" (folder {verdict.folder})"
        counts = [(len(verdict.errors), "error"), (len(verdict.warnings), "warning")]
        problems = ", ".join(plural(count, noun) for count, noun in counts if count)
        rows.append(("ok" if verdict.valid else "invalid", skill, problems))
    table = format_table(rows, styles=(status, style.name, None), header=style.heading)
    return "\n".join([*table, total])


def configure_lock(parser: argparse.ArgumentParser) -> None:
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
    add_flags(parser, "json", "quiet")


def run_lock(args: argparse.Namespace) -> int:
    """Write, check or update the lock file."""
    locked = SkillLock.read(args.output) if args.check or args.update else None
    url = args.url if args.url is not None or locked is None else locked.source
    with progress_bar(sys.stderr, noun="SKILL.md files read", quiet=args.quiet) as read:
        catalog = run(load_catalog(open_source(url), cache=False, progress=read))
    if report_catalog(catalog):
        return exits.USAGE
    with progress_bar(sys.stderr, noun="skills hashed", quiet=args.quiet) as hashed:
        current = run(lock_of(catalog, hashed))
    record: dict[str, Any] = {"path": args.output, "source": current.source}
    if locked is None:
        current.write(args.output)
        files = sum(len(skill.files) for skill in current.skills.values())
        if args.json:
            print_json({**record, "skills": sorted(current.skills), "files": files})
        else:
            skills = plural(len(current.skills), "skill")
            print(f"wrote {printable(args.output)}: {skills}, {plural(files, 'file')}")
        return exits.OK
    if args.update:
        return _update(args, locked, current, record)
    differences = locked.differences(current)
    if args.json:
        print_json({**record, "differences": differences})
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


def _update(
    args: argparse.Namespace, locked: SkillLock, current: SkillLock, record: dict[str, Any]
) -> int:
    name = args.update
    if name not in current.skills and name not in locked.skills:
        print_message("error", args.output, f"no skill named {echoed(name)!r} to pin")
        return exits.USAGE
    locked.pinning(name, current).write(args.output)
    pinned = name in current.skills
    if args.json:
        print_json({**record, "name": name, "pinned": pinned})
    else:
        done = "re-pinned {} in {}" if pinned else "removed {} from {}"
        print(done.format(printable(name), printable(args.output)))
    return exits.OK


HANDLERS = {
    "new": (configure_new, run_new),
    "validate": (configure_validate, run_validate),
    "lock": (configure_lock, run_lock),
}
