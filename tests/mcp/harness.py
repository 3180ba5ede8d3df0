"""A skills folder served by ``SkillServer`` over streamable HTTP on loopback, read back through
``McpSkillsBackend``: the real SDK on both sides of a real socket."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from backends import Backend, LocalBackend
from backends._mcp.backend import McpSkillsBackend
from backends.testing import BackendHarness
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import SkillServer
from skills_core.mcp._transports import http_server
from tests.backends.harnesses import LocalHarness


class ServedFolder(BackendHarness):
    """Writes go to the folder; the server refreshes after each, as its watch would."""

    def __init__(self, root: Path) -> None:
        self.local = LocalHarness(root)
        self.server = SkillServer(SkillCatalog(LocalBackend(root)))
        self._stack = contextlib.AsyncExitStack()
        self.url = ""

    async def start(self, tree: Mapping[str, bytes]) -> str:
        """Store ``tree``, load it and serve it; the endpoint's URL."""
        for path, data in tree.items():
            await self.local.write(path, data)
        await self.server.refresh()
        endpoint = await self._stack.enter_async_context(http_server(self.server))
        self.url = endpoint.url
        return self.url

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        return McpSkillsBackend(await self.start(tree), label="test")

    async def write(self, path: str, data: bytes) -> None:
        await self.local.write(path, data)
        await self.server.refresh()

    async def delete_skill(self, name: str) -> None:
        await self.local.delete_skill(name)
        await self.server.refresh()

    async def close(self) -> None:
        await self._stack.aclose()
        await self.server.aclose()
