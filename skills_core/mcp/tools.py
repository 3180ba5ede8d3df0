"""The plain skill tools over MCP, for clients that predate the skills extension.

``list_skills``, ``load_skill`` and ``load_skill_resource`` (google-adk's names and arguments)
run the shared tool factory; ``run_skill_script`` is offered only when the server was given a
:class:`~skills_core.tools.policy.ScriptPolicy`. Each result is the factory's JSON mapping, as
text and as structured content; error values are flagged ``isError``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

import mcp_types as types

from skills_core.tools.factory import SkillTools
from skills_core.tools.results import INVALID_ARGUMENTS, ToolResult, is_error, tool_error
from skills_core.tools.schemas import AS_BYTES, FILE_PATH, SCRIPT_ARGS, SKILL_NAME

Call = Callable[[SkillTools, Mapping[str, Any]], Awaitable[ToolResult]]
OPTIONAL = ("args", "as_bytes")


class McpTool(NamedTuple):
    """One tool: what clients are shown, and how a call runs."""

    declaration: types.Tool
    call: Call


def _declare(name: str, description: str, **parameters: Mapping[str, Any]) -> types.Tool:
    required = [key for key in parameters if key not in OPTIONAL]
    schema = {"type": "object", "properties": dict(parameters), "required": required}
    return types.Tool(name=name, description=description, input_schema=schema)


async def _list(tools: SkillTools, args: Mapping[str, Any]) -> ToolResult:
    return await tools.list_skills()


async def _load(tools: SkillTools, args: Mapping[str, Any]) -> ToolResult:
    return await tools.load_skill(args.get("skill_name"))


async def _read(tools: SkillTools, args: Mapping[str, Any]) -> ToolResult:
    return await tools.load_skill_resource(
        args.get("skill_name"), args.get("file_path"), args.get("as_bytes", False)
    )


async def _run(tools: SkillTools, args: Mapping[str, Any]) -> ToolResult:
    return await tools.run_skill_script(
        args.get("skill_name"), args.get("file_path"), args.get("args")
    )


READING_TOOLS = (
    McpTool(
        _declare("list_skills", "Lists the skills you can load, with what each is for."), _list
    ),
    McpTool(
        _declare(
            "load_skill",
            "Loads a skill's instructions (its SKILL.md body), where it lives and its files.",
            skill_name=SKILL_NAME,
        ),
        _load,
    ),
    McpTool(
        _declare(
            "load_skill_resource",
            "Reads one file of a skill: text as text; images, audio, video and PDF as base64; "
            "other binary files (fonts, archives...) described unless as_bytes is true.",
            skill_name=SKILL_NAME,
            file_path=FILE_PATH,
            as_bytes=AS_BYTES,
        ),
        _read,
    ),
)
SCRIPT_TOOL = McpTool(
    _declare(
        "run_skill_script",
        "Runs one of a skill's scripts and returns its exit code and output.",
        skill_name=SKILL_NAME,
        file_path=FILE_PATH,
        args=SCRIPT_ARGS,
    ),
    _run,
)


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
