"""What the final text and the base protocol ask of the server beyond the entries, through the
SDK's own client: ``resources/directory/read`` (declared with ``directoryRead: true``), the
version in ``serverInfo``, errors that name the URI, an unknown tool as a protocol error, and
``resources/templates/list`` answered since ``resources`` is declared."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from backends import LocalBackend
from backends._errors import installed_version
from backends._mcp.extension import SKILLS_EXTENSION
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import SkillServer
from tests.mcp.client import read_directory
from tests.mcp.conftest import write_tree
from tests.mcp.test_server import connect

VERSION = installed_version()  # read off the event loop
TREE = {
    "pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms. Use for PDFs.\n---\n# PDF\n",
    "pdf/references/forms.md": "# Forms\n",
    "pdf/references/deep/notes v2.md": "# Notes\n",
    "pdf/assets/logo.png": bytes(range(256)),
}


async def _served(root: Path, page_size: int = 100) -> SkillServer:
    server = SkillServer(SkillCatalog(LocalBackend(root)), page_size=page_size)
    await server.refresh()
    return server


async def test_directories_are_read_a_level_at_a_time(tmp_path: Path) -> None:
    server = await _served(await asyncio.to_thread(write_tree, tmp_path, TREE))
    try:
        async with connect(server) as client:
            settings = client.server_capabilities.extensions[SKILLS_EXTENSION]  # type: ignore[index]
            root = await _read(client, "skill://pdf")
            references = await _read(client, "skill://pdf/references")
            deep = await _read(client, "skill://pdf/references/deep")
            for not_a_folder in ("skill://pdf/SKILL.md", "skill://pdf/nope", "skill://nope"):
                with pytest.raises(MCPError) as caught:
                    await _read(client, not_a_folder)
                assert (caught.value.code, caught.value.error.data) == (
                    INVALID_PARAMS,
                    {"uri": not_a_folder},
                )
    finally:
        await server.aclose()
    assert settings == {"directoryRead": True}
    assert root == [
        ("skill://pdf/SKILL.md", "SKILL.md", "text/markdown"),
        ("skill://pdf/assets", "assets", "inode/directory"),
        ("skill://pdf/references", "references", "inode/directory"),
    ]
    assert references == [
        ("skill://pdf/references/deep", "deep", "inode/directory"),
        ("skill://pdf/references/forms.md", "forms.md", "text/markdown"),
    ]
    assert deep == [("skill://pdf/references/deep/notes%20v2.md", "notes v2.md", "text/markdown")]


async def test_directory_pages_follow_the_cursor(tmp_path: Path) -> None:
    server = await _served(await asyncio.to_thread(write_tree, tmp_path, TREE), page_size=2)
    try:
        async with connect(server) as client:
            first = await read_directory(client.session, "skill://pdf")
            second = await read_directory(client.session, "skill://pdf", first.next_cursor)
    finally:
        await server.aclose()
    assert [str(child.uri) for child in first.resources + second.resources] == [
        "skill://pdf/SKILL.md",
        "skill://pdf/assets",
        "skill://pdf/references",
    ]
    assert (first.next_cursor, second.next_cursor) == ("2", None)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[SkillServer]:
    server = await _served(await asyncio.to_thread(write_tree, tmp_path, TREE))
    yield server
    await server.aclose()


async def test_server_info_names_the_version(server: SkillServer) -> None:
    async with connect(server) as client:
        info = client.server_info
    assert info is not None
    assert (info.name, info.version) == ("skillfs", VERSION)  # main: ""
    assert VERSION


async def test_resource_templates_are_listed_since_resources_are_declared(
    server: SkillServer,
) -> None:
    async with connect(server) as client:
        templates = await client.list_resource_templates()  # main: -32601
    assert templates.resource_templates == []


async def test_a_file_not_served_is_an_error_naming_its_uri(server: SkillServer) -> None:
    async with connect(server) as client:
        with pytest.raises(MCPError) as missing:
            await client.read_resource("skill://pdf/references/gone.md")
    assert (missing.value.code, missing.value.error.data) == (
        INVALID_PARAMS,
        {"uri": "skill://pdf/references/gone.md"},  # main: no data
    )


async def test_an_unknown_tool_is_a_protocol_error(server: SkillServer) -> None:
    async with connect(server) as client:
        with pytest.raises(MCPError) as unknown:  # main: a tool result flagged isError
            await client.call_tool("no_such_tool", {})
    assert (unknown.value.code, unknown.value.error.message) == (
        INVALID_PARAMS,
        "Unknown tool: 'no_such_tool'",
    )


async def _read(client: Client, uri: str) -> list[tuple[str, str, str | None]]:
    result = await read_directory(client.session, uri)
    return [(str(child.uri), child.name, child.mime_type) for child in result.resources]
