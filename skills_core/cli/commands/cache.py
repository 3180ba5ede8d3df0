"""``skillfs cache info|clear [--json]``: what the catalog cache holds, and emptying it."""

from __future__ import annotations

import argparse
import sys
import time

from skills_core.catalog.cache import CatalogCache
from skills_core.cli import exits
from skills_core.cli.output import add_json_flag, format_table, human_size, plural, print_json
from skills_core.cli.terminal import Style

_ACTIONS = ("info", "clear")


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the action and ``--json``."""
    parser.add_argument(
        "action",
        choices=_ACTIONS,
        help="info: where the cache is and what it holds; clear: remove it",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Describe or clear the cache in ``$SKILLFS_CACHE_DIR`` (or the XDG cache folder)."""
    cache = CatalogCache()
    catalogs, size = cache.catalogs(), cache.size()
    if args.action == "clear":
        cache.clear()
    if args.json:
        print_json(
            {
                "path": str(cache.path),
                "size": size,
                "cleared": args.action == "clear",
                "catalogs": [row._asdict() for row in catalogs],
            }
        )
        return exits.OK
    if args.action == "clear":
        removed = plural(len(catalogs), "cached catalog")
        print(f"removed {removed} ({human_size(size)}) from {cache.path}")
        return exits.OK
    print(f"{cache.path} ({human_size(size)})" if catalogs else f"{cache.path}: empty")
    if catalogs:
        style = Style.of(sys.stdout)
        rows = [
            ("LAST SEEN", "SKILLS", "SIZE", "JUDGED", "SOURCE"),
            *(
                (_when(row.seen), str(row.skills), human_size(row.size), row.judged, row.source)
                for row in catalogs
            ),
        ]
        print("\n".join(format_table(rows, header=style.heading)))
    return exits.OK


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))
