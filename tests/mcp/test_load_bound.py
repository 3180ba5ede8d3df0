"""`skillfs serve --max-load-chars`: the MCP server's ``load_skill`` replies within the bound
it is given (the name ``SkillTools`` and ADK's ``Loading`` use), and reading on rebuilds the
whole body."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import stdio_client

from backends.testing import skill_md
from tests.mcp.conftest import write_tree
from tests.mcp.test_serve_process import stdio_params
from tests.tools.long_skills import long_body

BOUND = 3_000


async def test_serve_max_load_chars_bounds_every_part(tmp_path: Path) -> None:
    body = long_body(1, 12_000)
    tree: dict[str, str | bytes] = {"long/SKILL.md": skill_md("long", "A long skill.", body)}
    root = await asyncio.to_thread(write_tree, tmp_path, tree)
    params = stdio_params(root, "--no-watch", "--max-load-chars", str(BOUND))
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        sizes, text, args = [], "", {"skill_name": "long"}
        while True:
            result = await session.call_tool("load_skill", args)
            sizes.append(len(result.content[0].text))
            reply = json.loads(result.content[0].text)
            text += reply["instructions"]
            if "next_offset" not in reply:
                break
            args = {"skill_name": "long", "offset": reply["next_offset"]}
    assert text == body.strip()
    assert len(sizes) >= 4  # 12,000 characters in parts of at most 3,000
    assert max(sizes) <= BOUND
