"""``search_skills`` over MCP: the table's tool, the shared ranked search with each match's
strength, and no skill only a user may invoke among its results."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.context._budget import ListingPolicy
from skills_core.mcp._server import SkillServer
from skills_core.tools._factory import SkillTools

SKILLS = {
    "pdf": {"SKILL.md": skill_md("pdf", "Fill PDF forms and merge PDF files.")},
    "deploy": {"SKILL.md": skill_md("deploy", "Deploys the web app to production servers.")},
    "rotate": {
        "SKILL.md": "---\nname: rotate\ndescription: Rotates PDF signing keys.\n"
        "disable-model-invocation: true\n---\nRotate.\n"
    },
}


async def call(server: SkillServer, name: str, args: dict[str, Any]) -> tuple[list[str], Any]:
    await server.refresh()
    try:
        async with Client(server.lowlevel) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool(name, args)
    finally:
        await server.aclose()
    return tools, result


async def test_search_skills_ranks_like_the_shared_tool_and_hides_user_only_skills() -> None:
    catalog = SkillCatalog(MemoryBackend(SKILLS))
    tools, result = await call(SkillServer(catalog), "search_skills", {"query": "merge pdf"})
    assert "search_skills" in tools
    assert not result.is_error
    found = result.structured_content
    assert found == await SkillTools(catalog).search_skills("merge pdf")
    assert [skill["name"] for skill in found["skills"]] == ["pdf"]  # not the user-only rotate
    assert found["skills"][0]["strength"] in ("strong", "weak")


async def test_a_listing_without_a_search_tool_offers_no_search() -> None:
    server = SkillServer(SkillCatalog(MemoryBackend(SKILLS)), listing=ListingPolicy(search=False))
    await server.refresh()
    try:
        async with Client(server.lowlevel) as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            with pytest.raises(MCPError) as caught:  # an unknown tool: a protocol error
                await client.call_tool("search_skills", {"query": "pdf"})
    finally:
        await server.aclose()
    assert tools == ["list_skills", "load_skill", "load_skill_resource"]
    assert (caught.value.code, caught.value.error.message) == (
        INVALID_PARAMS,
        "Unknown tool: 'search_skills'",
    )
