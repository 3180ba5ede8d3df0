"""``skillfs search [URL] QUERY [--limit N] [--json]``: the ranked search the model gets.

The same call as the ``search_skills`` tool (:meth:`~skills_core.tools.SkillTools.search_skills`),
for a person: each skill found, best first, with its score, its strength (``strong`` above the
catalog's calibrated bar, ``weak`` at or below it) and where it is.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from skills_core.catalog.catalog import SkillCatalog
from skills_core.cli import exits, running
from skills_core.cli.arguments import whole_number
from skills_core.cli.output import add_json_flag, format_table, print_json, report_catalog
from skills_core.cli.source import (
    add_cache_flag,
    add_lock_flag,
    add_url_argument,
    load_catalog,
    open_source,
    source_hint,
)
from skills_core.cli.terminal import Style, print_message
from skills_core.tools.factory import DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SkillTools
from skills_core.tools.results import ToolResult, is_error


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, the query, ``--limit``, ``--no-cache``, ``--lock`` and ``--json``."""
    add_url_argument(parser)
    parser.add_argument(
        "query", metavar="QUERY", help="what the skill should do, in a few words (quoted)"
    )
    parser.add_argument(
        "--limit",
        type=whole_number(1, MAX_SEARCH_LIMIT),
        default=DEFAULT_SEARCH_LIMIT,
        metavar="N",
        help=f"show at most N skills, 1 to {MAX_SEARCH_LIMIT} (default: {DEFAULT_SEARCH_LIMIT})",
    )
    add_cache_flag(parser)
    add_lock_flag(parser)
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Print the skills found, best first (JSON with ``--json``)."""
    source = open_source(args.url)
    catalog = running.run(load_catalog(source, cache=args.cache, lock=args.lock))
    if report_catalog(catalog):
        return exits.USAGE
    found = running.run(_search(catalog, args.query, args.limit))
    if is_error(found):
        print_message("error", None, found["error"])
        return exits.USAGE
    skills = [_located(catalog, match) for match in found["skills"]]
    if not skills:
        hint = source_hint(args.query, "search", "QUERY")
        print_message("note", source.location, f"no skill shares a word with {args.query!r}{hint}")
    if args.json:
        print_json({"source": source.location, "query": args.query, "skills": skills})
    elif skills:
        style = Style.of(sys.stdout)
        rows = [
            ("NAME", "SCORE", "STRENGTH", "LOCATION"),
            *((s["name"], f"{s['score']:.3f}", s["strength"], s["location"]) for s in skills),
        ]
        table = format_table(rows, width=1 << 16, styles=(style.name,), header=style.heading)
        print("\n".join(table))  # locations whole, never cut to the terminal
    return exits.OK


async def _search(catalog: SkillCatalog, query: str, limit: int) -> ToolResult:
    return await SkillTools(catalog).search_skills(query, limit)


def _located(catalog: SkillCatalog, match: dict[str, Any]) -> dict[str, Any]:
    """A match of ``search_skills`` with where the skill is."""
    return {**match, "location": catalog.snapshot.loaded[match["name"]].location}
