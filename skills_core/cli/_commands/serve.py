"""``skillfs serve``: the skills at URL to MCP clients, over stdio or streamable HTTP.

Everything the command prints goes to stderr: on stdio, stdout is the protocol.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import os
import sys
from typing import TYPE_CHECKING

from skills_core._catalog.catalog import SkillCatalog
from skills_core._trust.policy import TrustPolicy
from skills_core.cli import _exits as exits
from skills_core.cli import _source as source
from skills_core.cli._app import characters, host, port, url_path
from skills_core.cli._output import (
    PrintableFormatter,
    plural,
    print_message,
    print_problems,
    printable,
)
from skills_core.cli._source import add_flags, add_url_argument, open_root
from skills_core.context._budget import ListingPolicy
from skills_core.tools._factory import DEFAULT_MAX_LOAD_CHARS, LoadPolicy

if TYPE_CHECKING:
    from skills_core.mcp._server import SkillServer


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL and the transport, watch, listing, loading, script and cache options."""
    add_url_argument(parser, skill_folder=False)
    add_flags(parser, "lock")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP, not stdio")
    parser.add_argument(
        "--host",
        type=host,
        default="127.0.0.1",
        help="HTTP address to bind (default: 127.0.0.1, this machine only: the server has no "
        "authentication)",
    )
    parser.add_argument(
        "--port", type=port, default=8000, help="HTTP port (default: 8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--path", type=url_path, default="/mcp", help="HTTP endpoint path (default: /mcp)"
    )
    parser.add_argument(
        "--no-watch",
        dest="watch",
        action="store_false",
        help="serve the skills as loaded at start, without following changes",
    )
    add_flags(parser, "interval", "budget", "search")
    parser.add_argument(
        "--max-load-chars",
        type=characters,
        default=DEFAULT_MAX_LOAD_CHARS,
        metavar="CHARS",
        help="longest load_skill answer; longer skills come in parts, read on by section or "
        f"offset (default: {DEFAULT_MAX_LOAD_CHARS})",
    )
    parser.add_argument(
        "--allow-scripts",
        action="store_true",
        help="offer run_skill_script: scripts of the served skills run on this machine",
    )
    add_flags(parser, "cache")


def run(args: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or Ctrl-C; exit 2 if loading or binding fails."""
    from skills_core.mcp._server import SkillServer  # the MCP SDK, or the install hint
    from skills_core.tools._policy import ScriptPolicy

    catalog = SkillCatalog(open_root(args.url), trust=TrustPolicy(lock=args.lock), cache=args.cache)
    server = SkillServer(
        catalog,
        scripts=ScriptPolicy() if args.allow_scripts else None,
        listing=ListingPolicy(budget=args.budget, search=not args.no_search_tool),
        loading=LoadPolicy(max_load_chars=args.max_load_chars),
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(PrintableFormatter("warning: %(message)s"))
    logging.getLogger("skillfs.mcp").addHandler(handler)
    try:
        return source.run(_serve(server, args))
    except KeyboardInterrupt:
        return exits.OK


async def _serve(server: SkillServer, args: argparse.Namespace) -> int:
    catalog = server.catalog
    try:
        (await server.refresh()).raise_for_failure()
        print_problems(catalog.errors, catalog.warnings)
        watching = asyncio.create_task(server.watch(interval=args.interval)) if args.watch else None
        try:
            code = await _transport(server, args, catalog.backend.location)
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
    finally:
        await server.aclose()
        await catalog.backend.aclose()
    return code


async def _transport(server: SkillServer, args: argparse.Namespace, location: str) -> int:
    from skills_core.mcp import _transports as transports

    what = f"serving {plural(len(server.catalog), 'skill')} from {location}"
    if not args.http:
        _say(f"{what} over stdio")
        await transports.serve_stdio(server)
        return exits.OK
    async with contextlib.AsyncExitStack() as stack:
        try:
            endpoint = await stack.enter_async_context(
                transports.http_server(server, host=args.host, port=args.port, path=args.path)
            )
        except OSError as exc:
            where = transports.address(args.host, args.port)
            print_message("error", where, f"cannot serve HTTP there: {_reason(exc)}")
            return exits.USAGE
        _say(f"{what} at {endpoint.url}")
        await endpoint.stopped()
    return exits.OK


def _reason(exc: OSError) -> str:
    """Why binding failed, without the socket module's own restatement of the address."""
    reason = os.strerror(exc.errno) if exc.errno and exc.errno > 0 else exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return f"{reason}; pick another --port, or 0 for a free one"
    return reason


def _say(message: str) -> None:
    print(printable(message), file=sys.stderr, flush=True)


HANDLERS = {"serve": (configure, run)}
