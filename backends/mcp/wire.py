"""The skills extension's requests and results as the MCP SDK sends and validates them.

Entries stay raw mappings here: :func:`backends.mcp.extension_entries.parse_entry` checks each
one on its own, so a single malformed entry never fails a whole listing page.
"""

from __future__ import annotations

from typing import Any, Literal

import mcp_types

LIST_METHOD = "skills/list"
GET_METHOD = "skills/get"
DIRECTORY_READ_METHOD = "resources/directory/read"


class ListSkillsParams(mcp_types.PaginatedRequestParams):
    """Parameters of ``skills/list``: an optional cursor."""


class GetSkillParams(mcp_types.RequestParams):
    """Parameters of ``skills/get``: the URI of a skill's ``SKILL.md``."""

    uri: str


class ReadDirectoryParams(mcp_types.PaginatedRequestParams):
    """Parameters of ``resources/directory/read``: a directory resource's URI, and a cursor."""

    uri: str


class ListSkillsRequest(mcp_types.Request[ListSkillsParams, Literal["skills/list"]]):
    """One page of the server's skills."""

    method: Literal["skills/list"] = "skills/list"
    params: ListSkillsParams


class GetSkillRequest(mcp_types.Request[GetSkillParams, Literal["skills/get"]]):
    """One skill's entry, by URI."""

    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class ListSkillsResult(mcp_types.PaginatedResult, mcp_types.CacheableResult):
    """A page of raw skill entries."""

    skills: list[Any]
    result_type: Literal["complete"] = "complete"


class GetSkillResult(mcp_types.CacheableResult):
    """One raw skill entry."""

    skill: Any
    result_type: Literal["complete"] = "complete"


class ReadDirectoryResult(mcp_types.PaginatedResult):
    """A page of a directory's direct children (``mimeType: inode/directory`` for directories)."""

    resources: list[mcp_types.Resource]
    result_type: Literal["complete"] = "complete"
