"""``skillfs list [URL]... [--trust KEY]... [--json]``: the loaded skills; problems go to stderr.

Several URLs merge, the first winning a name clash (a :class:`~backends.CompositeBackend`).
One that cannot be listed is one ``error:`` line naming it and why, the others' skills are
listed, and the exit code is 1; when none can be, exit 2. With ``--trust``, only published
indexes signed by one of the keys are listed; a refused one is one ``error:`` line.
"""

from __future__ import annotations

import argparse
import sys

from backends.composite import CompositeBackend
from skills_core.cli import exits, running
from skills_core.cli.output import (
    add_json_flag,
    format_table,
    print_json,
    problems_record,
    report_catalog,
    skill_record,
)
from skills_core.cli.source import (
    add_cache_flag,
    add_lock_flag,
    add_trust_option,
    add_url_argument,
    load_catalog,
    open_source,
    open_trusted,
    trusted_keys,
)
from skills_core.cli.terminal import Style, one_line
from skills_core.format.models import SkillMetadata


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--trust``, ``--no-cache`` and ``--json``."""
    add_url_argument(parser, several=True)
    add_trust_option(parser)
    add_cache_flag(parser)
    add_lock_flag(parser)
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Print a NAME / DESCRIPTION table (or JSON) of every loaded skill."""
    keys = trusted_keys(args.trust) if args.trust else []
    opening = open_trusted if args.trust else open_source
    sources = [opening(url) for url in args.url or [None]]
    source = sources[0] if len(sources) == 1 else CompositeBackend(sources)
    catalog = running.run(load_catalog(source, cache=args.cache, lock=args.lock, keys=keys))
    misplaced = report_catalog(catalog)
    skills = catalog.list()
    if args.json:
        print_json(
            {
                "source": catalog.backend.location,
                "skills": [skill_record(catalog, metadata) for metadata in skills],
                "errors": problems_record(catalog.errors),
                "warnings": problems_record(catalog.warnings),
            }
        )
    elif skills:
        style = Style.of(sys.stdout)
        rows = [
            ("NAME", "DESCRIPTION"),
            *((meta.name, _described(meta)) for meta in skills),
        ]
        print("\n".join(format_table(rows, styles=(style.name, None), header=style.heading)))
    if misplaced:
        return exits.USAGE
    return exits.INVALID if catalog.snapshot.unavailable else exits.OK


USER_ONLY = "[user only] "
"""Marks a skill with ``disable-model-invocation: true``: hidden from models, loadable by name."""


def _described(meta: SkillMetadata) -> str:
    """The table's description of ``meta``, marked when only a user may invoke it."""
    return ("" if meta.model_invocable else USER_ONLY) + one_line(meta.description)
