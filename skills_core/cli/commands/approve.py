"""``skillfs approve [URL] NAME [--scripts] [--tools]``: approve one skill's current content.

The approval is stored by the digest of every file of the skill (see
:mod:`skills_core.catalog.approvals`): once any file changes, the skill needs approval again.
"""

from __future__ import annotations

import argparse
import asyncio

from backends.base import Backend
from backends.digests import skill_digest
from skills_core.catalog.approvals import Approval, ApprovalStore
from skills_core.cli import exits, running
from skills_core.cli.source import add_url_argument, load_catalog, open_source
from skills_core.cli.terminal import print_message


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, the skill's name and what to approve."""
    add_url_argument(parser, skill_folder=False)
    parser.add_argument("name", metavar="NAME", help="the skill to approve, as it is served")
    parser.add_argument("--scripts", action="store_true", help="let its scripts run")
    parser.add_argument(
        "--tools", action="store_true", help="honour its allowed-tools where withheld"
    )


def run(args: argparse.Namespace) -> int:
    """Record the approval and print it; without --scripts or --tools, a usage error."""
    if not (args.scripts or args.tools):
        print_message("error", None, "say what to approve: --scripts, --tools or both")
        return exits.USAGE
    approval = running.run(_approve(open_source(args.url), args.name, args.scripts, args.tools))
    print(f"approved {approval.grants} of skill {approval.name!r} ({approval.digest})")
    return exits.OK


async def _approve(source: Backend, name: str, scripts: bool, tools: bool) -> Approval:
    async with source:
        catalog = await load_catalog(source, cache=True)
        digest = await skill_digest(source, catalog.folder(name))  # the NAME it serves
        store = await asyncio.to_thread(ApprovalStore)
        return await asyncio.to_thread(
            store.approve, digest, name=name, source=source.location, scripts=scripts, tools=tools
        )
