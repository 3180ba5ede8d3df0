"""Issue #20.4: binary files over MCP are blob resources, base64 once with their MIME type.

A 203 KB PNG read with ``load_skill_resource`` came back as a 271,101-character base64
string, twice (as text and as structured content). Now its bytes travel once, as an embedded
blob resource; the text and structured content only describe the file.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

from backends import LocalBackend
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import SkillServer
from skills_core.tools._factory import DEFAULT_MAX_LOAD_CHARS, DEFAULT_MAX_RESOURCE_BYTES
from tests.collections.shapes import PNG_HEADER, TTF_HEADER
from tests.mcp.conftest import SKILLS, write_tree
from tests.tools.long_skills import long_body

IMAGE = PNG_HEADER + os.urandom(200 * 1024)
"""A ~200 KB PNG-like file: a PNG header, then bytes that do not compress."""
FONT = TTF_HEADER + os.urandom(2_000)
HUGE = os.urandom(DEFAULT_MAX_RESOURCE_BYTES + 1)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[SkillServer]:
    files: dict[str, str | bytes] = {
        **SKILLS,
        "pdf/assets/chart.png": IMAGE,
        "pdf/assets/Lora.ttf": FONT,
        "pdf/assets/dump.bin": HUGE,
        "long/SKILL.md": "---\nname: long\ndescription: A long one.\n---\n" + long_body(7, 60_000),
    }
    server = SkillServer(SkillCatalog(LocalBackend(write_tree(tmp_path / "skills", files))))
    await server.refresh()
    yield server
    await server.aclose()


def blobs(result: types.CallToolResult) -> list[types.BlobResourceContents]:
    found = []
    for block in result.content:
        if isinstance(block, types.EmbeddedResource):
            assert isinstance(block.resource, types.BlobResourceContents)
            found.append(block.resource)
    return found


def texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def test_an_image_read_by_the_tool_is_one_blob_and_no_text(server: SkillServer) -> None:
    async with Client(server.lowlevel) as client:
        result = await client.call_tool(
            "load_skill_resource", {"skill_name": "pdf", "file_path": "assets/chart.png"}
        )

    (blob,) = blobs(result)
    assert blob.uri == "skill://pdf/assets/chart.png"
    assert blob.mime_type == "image/png"
    assert base64.b64decode(blob.blob) == IMAGE
    (text,) = texts(result)
    assert len(text) < 1_000
    assert blob.blob[:100] not in text
    assert result.structured_content == json.loads(text)
    assert result.structured_content["size"] == len(IMAGE)
    assert "content_base64" not in result.structured_content
    assert not result.is_error


async def test_an_image_read_as_a_resource_is_one_blob(server: SkillServer) -> None:
    async with Client(server.lowlevel) as client:
        read = await client.read_resource("skill://pdf/assets/chart.png")

    (content,) = read.contents
    assert isinstance(content, types.BlobResourceContents)
    assert content.mime_type == "image/png"
    assert base64.b64decode(content.blob) == IMAGE


async def test_a_font_is_described_unless_its_bytes_are_asked_for(server: SkillServer) -> None:
    async with Client(server.lowlevel) as client:
        described = await client.call_tool(
            "load_skill_resource", {"skill_name": "pdf", "file_path": "assets/Lora.ttf"}
        )
        asked = await client.call_tool(
            "load_skill_resource",
            {"skill_name": "pdf", "file_path": "assets/Lora.ttf", "as_bytes": True},
        )

    assert not blobs(described)
    assert described.structured_content["delivery"] == "described"
    (blob,) = blobs(asked)
    assert (blob.mime_type, base64.b64decode(blob.blob)) == ("font/ttf", FONT)
    assert asked.structured_content["delivery"] == "bytes"
    assert "content_base64" not in asked.structured_content


async def test_a_file_over_the_cap_is_a_clear_error(server: SkillServer) -> None:
    async with Client(server.lowlevel) as client:
        result = await client.call_tool(
            "load_skill_resource", {"skill_name": "pdf", "file_path": "assets/dump.bin"}
        )

    assert result.is_error
    assert not blobs(result)
    assert result.structured_content["error_code"] == codes.RESOURCE_TOO_LARGE
    expected = f"is {len(HUGE)} bytes, over the {DEFAULT_MAX_RESOURCE_BYTES}-byte limit"
    assert expected in result.structured_content["error"]


async def test_a_long_skill_loads_in_parts_over_mcp(server: SkillServer) -> None:
    async with Client(server.lowlevel) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        first = await client.call_tool("load_skill", {"skill_name": "long"})
        heading = first.structured_content["sections"][0]
        section = await client.call_tool("load_skill", {"skill_name": "long", "section": heading})

    assert {"section", "offset"} <= tools["load_skill"].input_schema["properties"].keys()
    (text,) = texts(first)
    assert len(text) <= DEFAULT_MAX_LOAD_CHARS
    assert first.structured_content["next_offset"] > 0
    assert section.structured_content["instructions"].startswith(heading)
