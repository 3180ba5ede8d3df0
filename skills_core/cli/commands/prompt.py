"""``skillfs prompt [URL] [--no-location] [--budget CHARS]``: the ``<available_skills>`` block."""

from __future__ import annotations

import argparse

from skills_core.cli import exits, running
from skills_core.cli.arguments import characters
from skills_core.cli.output import report_catalog
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import printable
from skills_core.context.budget import catalog_prompt


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``--no-location`` and ``--budget``."""
    add_url_argument(parser)
    parser.add_argument(
        "--no-location",
        action="store_true",
        help="leave out each skill's <location> (google-adk's format)",
    )
    parser.add_argument(
        "--budget",
        type=characters,
        metavar="CHARS",
        help="fit the block in CHARS characters: shorter descriptions, then names only, "
        "then a count pointing to search_skills, each with a note saying so",
    )


def run(args: argparse.Namespace) -> int:
    """Print the XML block an agent's system prompt lists the skills with."""
    catalog = running.run(load_catalog(open_source(args.url)))
    if report_catalog(catalog):
        return exits.USAGE
    prompt = catalog_prompt(catalog, include_location=not args.no_location, budget=args.budget)
    print(printable(prompt, multiline=True))
    return exits.OK
