"""What a model is shown over MCP, as the ADK toolset shows it: skills only a user may invoke
(``disable-model-invocation: true``) are in no listing a model reads (the tools), while the
listings a host builds its registry from (``skills/list``, ``resources/list``) carry them with
their frontmatter; the tools' ``skill_name`` is an enum of the names a model may give while
there are at most ``MAX_ENUM_SKILLS``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp import Client
from mcp.server.subscriptions import ResourcesListChanged, ToolsListChanged

from backends import LocalBackend
from skills_core._catalog.catalog import SkillCatalog
from skills_core._tool_table import MAX_ENUM_SKILLS
from skills_core.mcp._server import SkillServer
from tests.mcp.client import get_skill, list_skills
from tests.mcp.conftest import write_tree
from tests.mcp.test_server import connect, events

HIDDEN = {
    "secret/SKILL.md": "---\nname: secret\ndescription: Rotates the keys. Use when asked.\n"
    "disable-model-invocation: true\n---\n# Secret\n\nRotate them.\n",
}
USER_ONLY = "\ndisable-model-invocation: true\n---"


async def served(root: Path) -> SkillServer:
    server = SkillServer(SkillCatalog(LocalBackend(root)))
    await server.refresh()
    return server


async def test_user_only_skill_is_listed_for_hosts_not_for_models(skills_root: Path) -> None:
    server = await served(await asyncio.to_thread(write_tree, skills_root, HIDDEN))
    try:
        async with connect(server) as client:
            entries = await list_skills(client.session)
            resources = (await client.session.list_resources()).resources
            listing = await client.call_tool("list_skills", {})
            entry = await get_skill(client.session, "skill://secret/SKILL.md")
            loaded = await client.call_tool("load_skill", {"skill_name": "secret"})
            (text,) = (await client.session.read_resource("skill://secret/SKILL.md")).contents
    finally:
        await server.aclose()
    listed = ["skill://deploy/SKILL.md", "skill://pdf/SKILL.md", "skill://secret/SKILL.md"]
    assert [entry["uri"] for entry in entries] == listed
    assert [str(resource.uri) for resource in resources] == listed
    assert entries[2] == entry  # the host learns it is user-only from its frontmatter
    assert [skill["name"] for skill in json.loads(listing.content[0].text)["skills"]] == [
        "deploy",
        "pdf",
    ]
    assert entry["frontmatter"]["disable-model-invocation"] is True
    assert not loaded.is_error
    assert "Rotate them." in json.loads(loaded.content[0].text)["instructions"]
    assert "Rotate them." in text.text


def many_skills(count: int) -> dict[str, str | bytes]:
    return {
        f"s{i:03d}/SKILL.md": f"---\nname: s{i:03d}\ndescription: Skill {i}. Use for {i}.\n---\n"
        for i in range(count)
    }


@pytest.mark.parametrize("count", [MAX_ENUM_SKILLS, MAX_ENUM_SKILLS + 1])
async def test_skill_name_is_an_enum_up_to_the_limit(tmp_path: Path, count: int) -> None:
    tree = {**many_skills(count), **HIDDEN}
    server = await served(await asyncio.to_thread(write_tree, tmp_path, tree))
    try:
        async with connect(server) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    finally:
        await server.aclose()
    assert sorted(tools) == ["list_skills", "load_skill", "load_skill_resource", "search_skills"]
    for name in ("load_skill", "load_skill_resource"):
        skill_name = tools[name].input_schema["properties"]["skill_name"]
        if count <= MAX_ENUM_SKILLS:  # the user-only skill is not among them
            assert skill_name["enum"] == [path.split("/")[0] for path in many_skills(count)]
        else:
            assert "enum" not in skill_name


async def test_tools_list_follows_the_catalog_and_clients_hear_of_it(skills_root: Path) -> None:
    server = await served(skills_root)

    async def enum(client: Client) -> list[str]:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        names: list[str] = tools["load_skill"].input_schema["properties"]["skill_name"]["enum"]
        return names

    heard = events(server)
    try:
        async with connect(server) as client:
            before = await enum(client)
            alpha = "---\nname: alpha\ndescription: First by name. Use for a.\n---\n"
            await asyncio.to_thread(write_tree, skills_root, {"alpha/SKILL.md": alpha})
            await server.refresh()
            after = await enum(client)
            await asyncio.to_thread(write_tree, skills_root, {"pdf/references/forms.md": "new"})
            await server.refresh()  # the enum is as it was: only resources changed
            await asyncio.to_thread(
                write_tree, skills_root, {"alpha/SKILL.md": alpha.replace("\n---", USER_ONLY, 1)}
            )
            await server.refresh()
            hidden = await enum(client)
    finally:
        await server.aclose()
    assert before == ["deploy", "pdf"]
    assert after == ["deploy", "pdf", "alpha"]  # a new skill joins at the end: a stable prefix
    assert hidden == before
    tools_too = [ResourcesListChanged(), ToolsListChanged()]
    assert heard == [*tools_too, ResourcesListChanged(), *tools_too]
