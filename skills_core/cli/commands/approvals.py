"""``skillfs approvals [--revoke NAME|DIGEST] [--json]``: list or revoke stored approvals."""

from __future__ import annotations

import argparse
import sys

from backends.errors import echoed
from skills_core.cli import exits
from skills_core.cli.output import add_json_flag, format_table, plural, print_json
from skills_core.cli.terminal import Style, print_message
from skills_core.trust.approvals import ApprovalStore


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``--revoke`` and ``--json``."""
    parser.add_argument(
        "--revoke",
        metavar="NAME|DIGEST",
        help="remove every approval of a skill name, or the one of a content digest",
    )
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
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
