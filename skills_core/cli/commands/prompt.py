"""``skillfs prompt [URL] [--no-location] [--budget CHARS [--no-search-tool]] [--json]``.

The ``<available_skills>`` block of the skills at URL.
"""

from __future__ import annotations

import argparse

from skills_core.cli import exits, running
from skills_core.cli.arguments import characters
from skills_core.cli.output import add_json_flag, print_json, report_catalog
from skills_core.cli.source import (
    add_cache_flag,
    add_lock_flag,
    add_url_argument,
    load_catalog,
    open_source,
)
from skills_core.cli.terminal import printable
from skills_core.context.budget import catalog_prompt
from skills_core.tool_table import SEARCH_SKILLS


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--no-location``, ``--budget``, ``--no-search-tool`` and ``--json``."""
    add_url_argument(parser)
    add_cache_flag(parser)
    add_lock_flag(parser)
    parser.add_argument(
        "--no-location",
        action="store_true",
        help="leave out each skill's <location> (google-adk's format)",
    )
    parser.add_argument(
        "--budget",
        type=characters,
        metavar="CHARS",
        help="fit the block in CHARS characters: shorter descriptions, then one line per "
        "skill, then names only, then a count pointing to search_skills, each with a note "
        "saying so",
    )
    parser.add_argument(
        "--no-search-tool",
        action="store_true",
        help="the reader has no search_skills tool: never leave a name out, and point to "
        "load_skill only",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Print the XML block an agent's system prompt lists the skills with."""
    catalog = running.run(load_catalog(open_source(args.url), cache=args.cache, lock=args.lock))
    if report_catalog(catalog):
        return exits.USAGE
    prompt = catalog_prompt(
        catalog,
        include_location=not args.no_location,
        budget=args.budget,
        search_tool=None if args.no_search_tool else SEARCH_SKILLS,
    )
    if args.json:
        record = {"source": catalog.backend.location, "budget": args.budget}
        print_json({**record, "characters": len(prompt), "prompt": prompt})
    else:
        print(printable(prompt, multiline=True))
    return exits.OK
