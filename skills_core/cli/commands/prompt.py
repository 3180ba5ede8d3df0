"""``skillfs prompt [URL] [--no-location]``: the ``<available_skills>`` block."""

from __future__ import annotations

import argparse
import asyncio

from skills_core.cli import exits
from skills_core.cli.output import report_catalog
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import printable


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL and ``--no-location``."""
    add_url_argument(parser)
    parser.add_argument(
        "--no-location",
        action="store_true",
        help="leave out each skill's <location> (google-adk's format)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the XML block an agent's system prompt lists the skills with."""
    catalog = asyncio.run(load_catalog(open_source(args.url)))
    if report_catalog(catalog):
        return exits.USAGE
    print(printable(catalog.to_prompt(include_location=not args.no_location), multiline=True))
    return exits.OK
