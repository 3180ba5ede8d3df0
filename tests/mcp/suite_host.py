"""A host for the official conformance suite's client scenarios, built as skillfs hosts are.

The suite runs ``python -m tests.mcp.suite_host URL`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO``. The host refreshes a :class:`SkillCatalog` over
:class:`McpSkillsBackend` (the listing) and, except in ``sep-2640-client-no-prefetch``, which
checks that listing alone fetches no file, acts as an eager model would through the shared
tools: it loads each skill, then asks for every other file its entry lists, whether the load
worked or not. Each answer goes to stderr, which the suite keeps.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from backends._mcp.backend import McpSkillsBackend
from backends._mcp.extension import SKILL_MD
from skills_core._catalog.catalog import SkillCatalog
from skills_core.tools._factory import SkillTools

LIST_ONLY = "sep-2640-client-no-prefetch"


async def main(url: str, scenario: str) -> None:
    """List the server's skills; unless ``scenario`` only lists, load and read each."""
    async with McpSkillsBackend(url, label="suite", timeout=10) as backend:
        catalog = SkillCatalog(backend)
        report = await catalog.refresh()
        _say("refresh", {"added": list(report.added), "errors": len(report.errors)})
        if scenario == LIST_ONLY:
            return
        tools = SkillTools(catalog)
        for ref in await backend.list():
            _say("load_skill", await tools.load_skill(ref.name))
            for file in await backend.files(ref.name):
                if file.path != SKILL_MD:
                    _say(file.path, await tools.load_skill_resource(ref.name, file.path))


def _say(what: str, result: object) -> None:
    print(what, json.dumps(result, default=str)[:300], file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")))
