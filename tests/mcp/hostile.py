"""A hostile MCP server as a real stdio process: ``skillfs``'s own server (the official SDK)
with a middleware that misbehaves, written by a test into its tmp_path.

Each request's method is appended to a log file, so a test can count what the client asked;
the log starts with ``pid N``. Modes: ``silent`` never answers the handshake; ``slow-pages``
answers each ``skills/list`` page after a delay; ``inflate`` answers a read of one URI itself
with its text made 40 MiB, logging how much of the answer it could write (``wrote N of M
bytes``, or ``cut off after N of M bytes`` at a broken pipe); any other mode behaves.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp import StdioServerParameters

from tests.mcp.conftest import ROOT

SCRIPT = """
import asyncio
import json
import os
import sys
from pathlib import Path

from backends import LocalBackend
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import SkillServer
from skills_core.mcp._transports import serve_stdio

root, mode, log = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
WIRE = os.dup(1)  # the SDK points fd 1 at stderr while it serves


def note(line):
    with log.open("a") as file:
        file.write(line + "\\n")


def send_inflated(request_id, result):
    result["contents"][0]["text"] = "y" * (40 * 1024 * 1024)
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
    line = json.dumps(answer).encode() + b"\\n"
    written = 0
    try:
        while written < len(line):
            written += os.write(WIRE, line[written : written + 65536])
    except BrokenPipeError:
        note(f"cut off after {written} of {len(line)} bytes")
        raise
    note(f"wrote {written} of {len(line)} bytes")


async def hostile(ctx, call_next):
    note(ctx.method)
    if mode == "inflate" and ctx.method == "resources/read" and ctx.params["uri"] == sys.argv[4]:
        send_inflated(ctx.request_id, await call_next(ctx))
        await asyncio.Event().wait()  # the answer is sent
    if mode == "silent" and ctx.method in ("server/discover", "initialize"):
        await asyncio.Event().wait()  # never answers the handshake
    if mode == "slow-pages" and ctx.method == "skills/list":
        await asyncio.sleep(float(sys.argv[4]))  # each page just inside the timeout
    return await call_next(ctx)


async def main():
    note(f"pid {os.getpid()}")
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

    def notes(self, start: str) -> list[str]:
        """The lines of the log that begin with ``start``."""
        return [line for line in self.log.read_text().splitlines() if line.startswith(start)]
