"""Every adapter declares the skill tools of one table: what each model is shown is the row.

The ADK toolset and the MCP server are asked for their tools as a model or client sees them
(ADK's function declarations, MCP's ``tools/list``) and compared with
:data:`skills_core._tool_table.TOOLS`; the budget notes name the table's tools.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog, SkillMetadata
from skills_core._tool_table import LOAD_SKILL, REQUEST, SEARCH_SKILLS, TOOLS, with_skill_names
from skills_core.adk import Listing, SkillsToolset, ToolNames
from skills_core.context._budget import ListingPolicy
from skills_core.mcp._server import SkillServer
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import ScriptedLlm, declarations, one_turn, say

ROOT = Path(__file__).resolve().parents[2]
SKILLS = {"pdf": {"SKILL.md": skill_md("pdf", "Fill PDF forms.")}}


def row(name: str, skill_names: tuple[str, ...] = ()) -> dict[str, Any]:
    """The table's row, with the skill-name enum of ``skill_names`` (as ADK and MCP show it)."""
    declaration = TOOLS[name]
    parameters = with_skill_names(declaration.parameters, skill_names)
    return {
        "description": declaration.description,
        "parameters": replace(declaration, parameters=parameters).input_schema(),
    }


async def test_the_adk_toolset_declares_the_table() -> None:
    catalog = SkillCatalog(MemoryBackend(SKILLS))
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(), listing=Listing(search=True))
    model = ScriptedLlm(steps=[say("ok")])
    await one_turn(model, toolset, "hello")
    shown = declarations(model.requests[0])
    assert sorted(shown) == sorted(TOOLS)
    for name, declaration in shown.items():
        expected = row(name, ("pdf",))
        if name == LOAD_SKILL:  # described from the current skills; ADK also forks
            forking = TOOLS[name].with_parameters(request=REQUEST)
            parameters = with_skill_names(forking.parameters, ("pdf",))
            expected = {
                "description": declaration.description,
                "parameters": replace(forking, parameters=parameters).input_schema(),
            }
        seen = {
            "description": declaration.description,
            "parameters": declaration.parameters_json_schema,
        }
        assert seen == expected, name


async def test_the_mcp_server_declares_the_table() -> None:
    catalog = SkillCatalog(MemoryBackend(SKILLS))
    server = SkillServer(catalog, scripts=ScriptPolicy())
    await server.refresh()
    try:
        async with Client(server.lowlevel) as client:
            listed = (await client.list_tools()).tools
    finally:
        await server.aclose()
    assert [tool.name for tool in listed] == list(TOOLS)
    for tool in listed:
        seen = {"description": tool.description, "parameters": tool.input_schema}
        assert seen == row(tool.name, ("pdf",)), tool.name


def test_tool_names_rename_every_tool_of_the_table() -> None:
    defaults = {field.name: field.default for field in dataclasses.fields(ToolNames)}
    assert defaults == {name: name for name in TOOLS}


def test_the_budget_notes_name_the_tables_tools() -> None:
    policy = ListingPolicy(budget=300)
    listing = policy.listing(
        [SkillMetadata(name=f"s{index}", description="d" * 50) for index in range(9)]
    )
    assert f"`{SEARCH_SKILLS}`" in listing["note"]


def test_a_tool_name_is_given_in_one_place_only() -> None:
    """The listing takes no names to drop: a tool is renamed by ToolNames alone."""
    fields = {field.name for field in dataclasses.fields(ListingPolicy)}
    assert not fields & {"search_tool", "load_tool", "names"}
    with pytest.raises(TypeError):
        ListingPolicy(search_tool="find")  # type: ignore[call-arg]


def test_no_module_but_the_table_spells_a_tool_name() -> None:
    """String constants only: docstrings and comments may name the tools."""
    spelled = {}
    for package in ("backends", "skills_core"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text())
            docstrings = {
                id(node.body[0].value)
                for node in ast.walk(tree)
                if isinstance(
                    node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
                )
                and node.body
                and isinstance(node.body[0], ast.Expr)
            }
            names = {
                node.value
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant)
                and node.value in TOOLS
                and id(node) not in docstrings
            }
            if names:
                spelled[str(path.relative_to(ROOT))] = names
    assert list(spelled) == ["skills_core/_tool_table.py"]
