"""``skillfs validate [URL|SKILL_DIR] [--lock FILE] [--json] [-q]``: the verdict on every skill.

The catalog is strict, so every spec violation is an error; advice (an empty or very long
body) stays a warning. With ``--lock``, every file of every skill is also checked against the
lock: a skill it does not pin, a file that differs, that it does not name or that is gone are
errors. Exit code 1 when any skill has an error. On a terminal, progress bars count the
SKILL.md files read and the skills checked against the lock (not with ``--quiet``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from skills_core.catalog.catalog import Verdict, verdicts_of
from skills_core.cli import exits, running
from skills_core.cli.output import (
    add_json_flag,
    format_table,
    plural,
    print_json,
    print_problems,
    report_empty,
)
from skills_core.cli.progress import add_quiet_flag, progress_bar
from skills_core.cli.source import (
    add_cache_flag,
    add_lock_flag,
    add_url_argument,
    load_catalog,
    open_source,
)
from skills_core.cli.terminal import Style
from skills_core.trust.lock import lock_problems


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL (or skill folder), ``--no-cache``, ``--lock``, ``--json`` and ``--quiet``."""
    add_url_argument(parser)
    add_cache_flag(parser)
    add_lock_flag(parser)
    add_json_flag(parser)
    add_quiet_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Report every problem of every skill; exit 1 when any is an error."""
    source = open_source(args.url)
    with progress_bar(sys.stderr, noun="SKILL.md files read", quiet=args.quiet) as read:
        loading = load_catalog(source, strict=True, cache=args.cache, lock=args.lock, progress=read)
        catalog = running.run(loading)
    verdicts = verdicts_of(catalog)
    by_name = {verdict.name: verdict for verdict in verdicts}
    with progress_bar(sys.stderr, noun="skills checked", quiet=args.quiet) as checked:
        problems = running.run(lock_problems(catalog, checked))
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
        print(_summary(verdicts, Style.of(sys.stdout)))
    if misplaced:
        return exits.USAGE
    return exits.OK if valid else exits.INVALID


def _summary(verdicts: Sequence[Verdict], style: Style) -> str:
    invalid = sum(not verdict.valid for verdict in verdicts)
    errors = sum(len(verdict.errors) for verdict in verdicts)
    warnings = sum(len(verdict.warnings) for verdict in verdicts)
    total = (
        f"{plural(len(verdicts), 'skill')} checked: {len(verdicts) - invalid} valid, "
        f"{invalid} invalid ({plural(errors, 'error')}, {plural(warnings, 'warning')})"
    )
    if not verdicts:
        return total
    rows = [
        ("ok" if verdict.valid else "invalid", _skill_cell(verdict), _counts(verdict))
        for verdict in verdicts
    ]

    def status(text: str) -> str:
        return style.ok(text) if text == "ok" else style.error(text)

    table = format_table(
        [("STATUS", "SKILL", "PROBLEMS"), *rows],
        styles=(status, style.name, None),
        header=style.heading,
    )
    return "\n".join([*table, total])


def _skill_cell(verdict: Verdict) -> str:
    """The skill's name, and its folder where that differs."""
    if verdict.folder == verdict.name:
        return verdict.name
    return f"{verdict.name} (folder {verdict.folder})"


def _counts(verdict: Verdict) -> str:
    counts = [(len(verdict.errors), "error"), (len(verdict.warnings), "warning")]
    return ", ".join(plural(count, noun) for count, noun in counts if count)
