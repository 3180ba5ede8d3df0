"""The plain skill tools over MCP, for clients that predate the skills extension.

``list_skills``, ``search_skills``, ``load_skill`` and ``load_skill_resource``, as
:mod:`skills_core.tool_table` declares them, run the shared tool factory; ``search_skills``
unless the server's listing has no search tool, ``run_skill_script`` only when the server was
given a :class:`~skills_core.tools.policy.ScriptPolicy`. Their ``skill_name`` is
declared per ``tools/list`` as an enum of the names a model may give, as the ADK toolset's
(:func:`~skills_core.tool_table.with_skill_names`). Each result is the
factory's JSON mapping, as text and as structured content; error values are flagged
``isError``. A binary file's bytes (``content_base64``) are taken out of that mapping and sent
once, as an embedded blob resource with its MIME type: never as text, never twice.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import mcp_types as types
from mcp.shared.exceptions import MCPError

from backends.errors import echoed
from backends.mcp.extension import resource_uri
from skills_core.mcp.manifest import skill_root
from skills_core.tool_table import (
    RUN_SKILL_SCRIPT,
    SEARCH_SKILLS,
    TOOLS,
    ToolDeclaration,
    with_skill_names,
)
from skills_core.tools.factory import SkillTools
from skills_core.tools.results import ToolResult, is_error


class McpTool(NamedTuple):
    """One tool: its declaration, and how a call runs."""

    declaration: ToolDeclaration
    call: Callable[[SkillTools, Mapping[str, Any]], Awaitable[ToolResult]]

    def shown(self, skill_names: Sequence[str]) -> types.Tool:
        """The tool as clients see it, its ``skill_name`` limited to ``skill_names``."""
        declaration = self.declaration
        parameters = with_skill_names(declaration.parameters, skill_names)
        return types.Tool(
            name=declaration.name,
            description=declaration.description,
            input_schema=replace(declaration, parameters=parameters).input_schema(),
        )


def _served(declaration: ToolDeclaration) -> McpTool:
    """A tool of the table, run by the factory's method of its name."""

    async def call(tools: SkillTools, args: Mapping[str, Any]) -> ToolResult:
        result: ToolResult = await getattr(tools, declaration.name)(**declaration.arguments(args))
        return result

    return McpTool(declaration, call)


ALL_TOOLS = tuple(_served(declaration) for declaration in TOOLS.values())


def offered(tools: SkillTools) -> dict[str, McpTool]:
    """The tools a server offers, in the table's order.

    ``search_skills`` only when the listing offers search, ``run_skill_script`` only under
    an explicit script policy.
    """
    left_out = {
        SEARCH_SKILLS: not tools.listing.searches,
        RUN_SKILL_SCRIPT: tools.scripts is None,
    }
    return {
        tool.declaration.name: tool
        for tool in ALL_TOOLS
        if not left_out.get(tool.declaration.name, False)
    }


async def call_tool(
    offered_tools: Mapping[str, McpTool], tools: SkillTools, name: str, args: Mapping[str, Any]
) -> types.CallToolResult:
    """Run one call and wrap its result.

    Raises:
        MCPError: ``-32602``: no tool of that name is offered (a protocol error, not a result).
    """
    tool = offered_tools.get(name)
    if tool is None:
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {echoed(name)!r}")
    result, blob = _without_bytes(await tool.call(tools, args))
    text = types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))
    content: list[types.ContentBlock] = [text] if blob is None else [text, blob]
    return types.CallToolResult(
        content=content, structured_content=result, is_error=is_error(result)
    )


def _without_bytes(result: ToolResult) -> tuple[ToolResult, types.EmbeddedResource | None]:
    """A file's description without its base64, and those bytes as a blob resource."""
    if "content_base64" not in result:
        return result, None
    described = {key: value for key, value in result.items() if key != "content_base64"}
    described["note"] = "The file's bytes follow as an embedded blob resource."
    blob = types.BlobResourceContents(
        uri=resource_uri(skill_root(result["skill_name"]), result["file_path"]),
        mime_type=result["mime_type"],
        blob=result["content_base64"],
    )
    return described, types.EmbeddedResource(type="resource", resource=blob)
