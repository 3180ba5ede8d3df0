"""`skillfs serve` over stdio quotes a megabyte-long argument by its start and its length.

A real process, the SDK's ClientSession: each tool, an unknown tool's name, a resource URI,
a ``skills/get`` URI and a ``skills/list`` cursor of 1 MB get an answer of a few hundred
characters.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from backends._mcp.extension import ListSkillsParams, ListSkillsRequest, ListSkillsResult
from tests.mcp.client import get_skill
from tests.mcp.test_serve_process import stdio_params
from tests.tools.test_echo_bound import BIG, BOUND, CALLS

MARK = "… [1,000,0"


async def error_of(request: Awaitable[object]) -> str:
    try:
        await request
    except MCPError as exc:
        return exc.error.message
    raise AssertionError("the request was answered")


async def test_every_echo_of_a_served_catalog_is_bounded(skills_root: Path) -> None:
    requests: list[Callable[[ClientSession], Awaitable[object]]] = [
        lambda session: session.read_resource(f"skill://pdf/{BIG}"),
        lambda session: get_skill(session, f"skill://{BIG}/SKILL.md"),
        lambda session: session.send_request(
            ListSkillsRequest(params=ListSkillsParams(cursor=BIG)), ListSkillsResult
        ),
    ]
    async with (
        stdio_client(stdio_params(skills_root, "--no-watch", "--allow-scripts")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        replies = []
        for tool, args in CALLS:
            result = await session.call_tool(tool, args)
            replies.append(result.content[0].text)
        errors = [await error_of(request(session)) for request in requests]
        errors.append(await error_of(session.call_tool(BIG, {})))  # unknown: a protocol error
    for text in replies + errors:
        assert len(text) <= BOUND, text[:300]
        assert MARK in text, text[:300]
    assert json.loads(replies[0])["query"] == BIG[:100] + "… [1,000,000 characters]"
