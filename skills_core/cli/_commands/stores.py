"""Commands on what skillfs keeps for this user: cache, approve, approvals (docs/cli.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from backends._base import Backend
from backends._digests import is_digest, skill_digest
from backends._errors import echoed
from skills_core._catalog.cache import CatalogCache
from skills_core._trust.approvals import Approval, ApprovalStore
from skills_core.cli import _exits as exits
from skills_core.cli._output import (
    Style,
    format_table,
    human_size,
    plural,
    print_json,
    print_message,
)
from skills_core.cli._source import (
    add_flags,
    add_name_argument,
    add_url_argument,
    load_catalog,
    open_source,
    reading_name,
    run,
)
from skills_core.tools._scripts import approval_source


def configure_cache(parser: argparse.ArgumentParser) -> None:
    """Add the action and ``--json``."""
    parser.add_argument(
        "action",
        choices=("info", "clear"),
        help="info: where the cache is and what it holds; clear: remove it",
    )
    add_flags(parser, "json")


def run_cache(args: argparse.Namespace) -> int:
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
        rows = [
            ("LAST SEEN", "SKILLS", "SIZE", "JUDGED", "SOURCE"),
            *(
                (
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(row.seen)),
                    str(row.skills),
                    human_size(row.size),
                    row.judged,
                    row.source,
                )
                for row in catalogs
            ),
        ]
        print("\n".join(format_table(rows, header=Style.of(sys.stdout).heading)))
    return exits.OK


def configure_approve(parser: argparse.ArgumentParser) -> None:
    """Add the URL, the skill's name and what to approve."""
    add_url_argument(parser, skill_folder=False)
    add_name_argument(parser, "the skill to approve, as it is served")
    parser.add_argument("--scripts", action="store_true", help="let its scripts run")
    parser.add_argument(
        "--tools", action="store_true", help="honour its allowed-tools where withheld"
    )
    parser.add_argument(
        "--digest",
        type=_digest,
        metavar="sha256:HEX",
        help="approve only if the skill's content still has this digest (what 'skillfs show' "
        "printed when you reviewed it)",
    )
    add_flags(parser, "json")


def run_approve(args: argparse.Namespace) -> int:
    """Record the approval and print it (exit 1 when ``--digest`` is not the current one)."""
    if not (args.scripts or args.tools):
        print_message("error", None, "say what to approve: --scripts, --tools or both")
        return exits.USAGE
    source = open_source(args.url)
    with reading_name(args.name, "approve"):
        approval = run(_approve(source, args.name, args.scripts, args.tools, args.digest))
    if isinstance(approval, str):
        message = (
            f"skill {echoed(args.name)!r} is {approval} now, not {args.digest} as reviewed; "
            "not approved (show it again)"
        )
        print_message("error", source.location, message)
        return exits.INVALID
    if args.json:
        print_json(approval._asdict())
    else:
        print(f"approved {approval.grants} of skill {approval.name!r} ({approval.digest})")
    return exits.OK


def _digest(text: str) -> str:
    if not is_digest(text):
        raise argparse.ArgumentTypeError(
            f"{echoed(text)!r} is not a sha256: digest ('skillfs show')"
        )
    return text


async def _approve(
    source: Backend, name: str, scripts: bool, tools: bool, reviewed: str | None
) -> Approval | str:
    """The approval recorded, or the current digest when it is not ``reviewed``."""
    async with source:
        catalog = await load_catalog(source, cache=True)
        digest = await skill_digest(source, catalog.folder(name))  # the NAME it serves
        if reviewed is not None and digest != reviewed:
            return digest
        where, bound_to = await approval_source(catalog, name)
        store = await asyncio.to_thread(ApprovalStore)
        return await asyncio.to_thread(
            store.approve, digest, name=name, source=bound_to or where, scripts=scripts, tools=tools
        )


def configure_approvals(parser: argparse.ArgumentParser) -> None:
    """Add ``--revoke`` and ``--json``."""
    parser.add_argument(
        "--revoke",
        metavar="NAME|DIGEST",
        help="remove every approval of a skill name, or the one of a content digest",
    )
    add_flags(parser, "json")


def run_approvals(args: argparse.Namespace) -> int:
    """Print the approvals, or revoke some (exit 1 when none matched)."""
    store = ApprovalStore()
    if args.revoke is not None:
        gone = store.revoke(args.revoke)
        if not gone:
            print_message("error", str(store.path), f"no approval of {echoed(args.revoke)!r}")
            return exits.INVALID
        if args.json:
            print_json({"path": str(store.path), "revoked": [a._asdict() for a in gone]})
        else:
            print(f"revoked {plural(len(gone), 'approval')} of {echoed(args.revoke)!r}")
        return exits.OK
    approvals = store.approvals()
    if args.json:
        print_json({"path": str(store.path), "approvals": [a._asdict() for a in approvals]})
        return exits.OK
    if not approvals:
        print(f"{store.path}: no approvals")
        return exits.OK
    rows = [
        ("NAME", "APPROVED", "ON", "DIGEST", "SOURCE"),
        *((a.name, a.grants, a.approved, a.digest, a.source) for a in approvals),
    ]
    print("\n".join(format_table(rows, header=Style.of(sys.stdout).heading)))
    return exits.OK


HANDLERS = {
    "cache": (configure_cache, run_cache),
    "approve": (configure_approve, run_approve),
    "approvals": (configure_approvals, run_approvals),
}
