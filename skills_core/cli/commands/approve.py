"""``skillfs approve [URL] NAME [--scripts] [--tools] [--digest D] [--json]``: approve a skill.

The approval is stored by the digest of every file of the skill (see
:mod:`skills_core.trust.approvals`): once any file changes, the skill needs approval again.
A skill from no folder on this machine (an MCP server's: ``skillfs approve mcp+https://host/mcp
NAME``) is approved at its location, server label and URI included
(:func:`~skills_core.tools.script_approval.approval_source`).
``--digest`` binds it to what the user reviewed (the digest ``skillfs show`` printed): a skill
whose current content has another digest is not approved.
"""

from __future__ import annotations

import argparse
import asyncio

from backends.base import Backend
from backends.digests import is_digest, skill_digest
from backends.errors import echoed
from skills_core.cli import exits, running
from skills_core.cli.output import add_json_flag, print_json
from skills_core.cli.source import (
    add_name_argument,
    add_url_argument,
    load_catalog,
    open_source,
    reading_name,
)
from skills_core.cli.terminal import print_message
from skills_core.tools.script_approval import approval_source
from skills_core.trust.approvals import Approval, ApprovalStore


def configure(parser: argparse.ArgumentParser) -> None:
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
    add_json_flag(parser)


def run(args: argparse.Namespace) -> int:
    """Record the approval and print it; without --scripts or --tools, a usage error.

    A ``--digest`` unlike the skill's current one approves nothing (exit 1).
    """
    if not (args.scripts or args.tools):
        print_message("error", None, "say what to approve: --scripts, --tools or both")
        return exits.USAGE
    source = open_source(args.url)
    with reading_name(args.name, "approve"):
        approving = _approve(source, args.name, args.scripts, args.tools, args.digest)
        approval = running.run(approving)
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
