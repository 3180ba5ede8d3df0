"""The plain skill tools over MCP, for clients that predate the skills extension.

``list_skills``, ``load_skill`` and ``load_skill_resource``, as :mod:`skills_core.tool_table`
declares them, run the shared tool factory; ``run_skill_script`` is offered only when the
server was given a :class:`~skills_core.tools.policy.ScriptPolicy`. Each result is the
factory's JSON mapping, as text and as structured content; error values are flagged
``isError``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

import mcp_types as types

from skills_core.codes import INVALID_ARGUMENTS
from skills_core.tool_table import (
    LIST_SKILLS,
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    RUN_SKILL_SCRIPT,
    TOOLS,
    ToolDeclaration,
)
from skills_core.tools.factory import SkillTools
from skills_core.tools.results import ToolResult, is_error, tool_error


class McpTool(NamedTuple):
    """One tool: what clients are shown, and how a call runs."""

    declaration: types.Tool
    call: Callable[[SkillTools, Mapping[str, Any]], Awaitable[ToolResult]]


def _served(declaration: ToolDeclaration) -> McpTool:
    """A tool of the table, run by the factory's method of its name."""

    async def call(tools: SkillTools, args: Mapping[str, Any]) -> ToolResult:
        result: ToolResult = await getattr(tools, declaration.name)(**declaration.arguments(args))
        return result

    shown = types.Tool(
        name=declaration.name,
        description=declaration.description,
        input_schema=declaration.input_schema(),
    )
    return McpTool(shown, call)


READING_TOOLS = tuple(
    _served(TOOLS[name]) for name in (LIST_SKILLS, LOAD_SKILL, LOAD_SKILL_RESOURCE)
)
SCRIPT_TOOL = _served(TOOLS[RUN_SKILL_SCRIPT])


def offered(tools: SkillTools) -> dict[str, McpTool]:
    """The tools a server offers: scripts only under an explicit policy."""
    chosen = (*READING_TOOLS, SCRIPT_TOOL) if tools.scripts is not None else READING_TOOLS
    return {tool.declaration.name: tool for tool in chosen}


async def call_tool(
    offered_tools: Mapping[str, McpTool], tools: SkillTools, name: str, args: Mapping[str, Any]
) -> types.CallToolResult:
    """Run one call and wrap its result (an error value for an unknown tool)."""
    tool = offered_tools.get(name)
    if tool is None:
        result = tool_error(INVALID_ARGUMENTS, f"no tool named {name!r}")
    else:
        result = await tool.call(tools, args)
    text = types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))
    return types.CallToolResult(
        content=[text], structured_content=result, is_error=is_error(result)
    )
