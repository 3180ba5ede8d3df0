"""A hostile MCP server as a real stdio process: ``skillfs``'s own server (the official SDK)
with a middleware that misbehaves, written by a test into its tmp_path.

Each request's method is appended to a log file, so a test can count what the client asked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp import StdioServerParameters

from tests.mcp.conftest import ROOT

SCRIPT = """
import asyncio
import sys
from pathlib import Path

from backends import LocalBackend
from skills_core.catalog.catalog import SkillCatalog
from skills_core.mcp.server import SkillServer
from skills_core.mcp.transports import serve_stdio

root, mode, log = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])


async def hostile(ctx, call_next):
    with log.open("a") as file:
        file.write(ctx.method + "\\n")
    if mode == "silent" and ctx.method in ("server/discover", "initialize"):
        await asyncio.Event().wait()  # never answers the handshake
    if mode == "slow-pages" and ctx.method == "skills/list":
        await asyncio.sleep(float(sys.argv[4]))  # each page just inside the timeout
    return await call_next(ctx)


async def main():
    server = SkillServer(SkillCatalog(LocalBackend(root)), page_size=1)
    await server.refresh()
    server.lowlevel.middleware.append(hostile)
    await serve_stdio(server)


asyncio.run(main())
"""


class HostileServer:
    """The script, its skills folder and its request log, below ``folder``."""

    def __init__(self, folder: Path, mode: str, *args: str) -> None:
        self.script = folder / "hostile_server.py"
        self.script.write_text(SCRIPT)
        self.skills = folder / "served"
        self.skills.mkdir()
        self.log = folder / "requests.log"
        self.log.touch()
        self.args = [str(self.script), str(self.skills), mode, str(self.log), *args]

    def params(self) -> StdioServerParameters:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return StdioServerParameters(command=sys.executable, args=self.args, cwd=ROOT, env=env)

    def add_skill(self, name: str, body: str = "Body.\n") -> None:
        folder = self.skills / name
        folder.mkdir()
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n{body}")

    def requests(self, method: str) -> int:
        """How many ``method`` requests the server received."""
        return self.log.read_text().splitlines().count(method)
