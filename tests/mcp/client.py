"""What a plain MCP client does with the skills extension: the SDK's ClientSession and nothing
of skillfs's client side, so the server is checked against the protocol, not against itself."""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Literal

import mcp_types as types
from mcp import ClientSession

from backends._mcp.extension import (
    GetSkillParams,
    GetSkillRequest,
    GetSkillResult,
    ListSkillsParams,
    ListSkillsRequest,
    ListSkillsResult,
    ReadDirectoryParams,
    ReadDirectoryResult,
)


class ReadDirectoryRequest(types.Request[ReadDirectoryParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: ReadDirectoryParams


async def list_skills(session: ClientSession) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = await session.send_request(
            ListSkillsRequest(params=ListSkillsParams(cursor=cursor)), ListSkillsResult
        )
        entries += page.skills
        cursor = page.next_cursor
        if cursor is None:
            return entries


async def get_skill(session: ClientSession, uri: str) -> dict[str, Any]:
    result = await session.send_request(
        GetSkillRequest(params=GetSkillParams(uri=uri)), GetSkillResult
    )
    return result.skill


async def read_bytes(session: ClientSession, uri: str) -> bytes:
    (content,) = (await session.read_resource(uri)).contents
    assert content.uri == uri
    if isinstance(content, types.TextResourceContents):
        return content.text.encode()
    return base64.b64decode(content.blob)


async def read_verified(session: ClientSession, entry: dict[str, Any]) -> dict[str, bytes]:
    """Every file of an entry, each checked against its digest and size."""
    files = {}
    for resource in entry["resources"]:
        data = await read_bytes(session, resource["uri"])
        assert resource["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
        assert resource["size"] == len(data)
        files[resource["uri"]] = data
    return files


async def read_directory(
    session: ClientSession, uri: str, cursor: str | None = None
) -> ReadDirectoryResult:
    return await session.send_request(
        ReadDirectoryRequest(params=ReadDirectoryParams(uri=uri, cursor=cursor)),
        ReadDirectoryResult,
    )
