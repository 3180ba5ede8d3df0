"""Each limit is defined once, by concern, under one name wherever it is a knob."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

from backends._limits import HOST_SKILL_BYTES, HOST_SKILL_FILES, Limits
from backends._mcp.backend import McpSkillsBackend
from skills_core._format.models import FormatLimits
from skills_core.adk import Loading
from skills_core.adk.adk_skills import SkillsConfig
from skills_core.tools import LoadPolicy, SkillTools
from skills_core.tools._factory import DEFAULT_MAX_LOAD_CHARS, DEFAULT_MAX_RESOURCE_BYTES

ROOT = Path(__file__).resolve().parent.parent


def test_the_per_skill_host_limits_are_defined_in_backends_limits_alone() -> None:
    found = []
    for package in ("backends", "skills_core"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.parse(path.read_text()).body:
                text = ast.unparse(node)
                if isinstance(node, ast.Assign) and (
                    text.endswith("= 16 * MIB") or text.endswith("FILES = 512")
                ):
                    found.append(f"{path.relative_to(ROOT)}: {text}")
    assert sorted(found) == [
        "backends/_limits.py: HOST_SKILL_BYTES = 16 * MIB",
        "backends/_limits.py: HOST_SKILL_FILES = 512",
    ]
    defaults = inspect.signature(McpSkillsBackend).parameters
    assert defaults["max_files"].default == HOST_SKILL_FILES
    assert defaults["max_skill_bytes"].default == HOST_SKILL_BYTES


def test_the_tool_resource_cap_has_one_name_and_one_default() -> None:
    assert LoadPolicy().max_resource_bytes == DEFAULT_MAX_RESOURCE_BYTES  # SkillTools' loading=
    assert Loading().max_resource_bytes == DEFAULT_MAX_RESOURCE_BYTES  # SkillsToolset's loading=
    fields = {field.name: field.default for field in dataclasses.fields(SkillsConfig)}
    assert fields["max_resource_bytes"] == DEFAULT_MAX_RESOURCE_BYTES


def test_the_load_bound_has_one_name_and_one_default() -> None:
    assert LoadPolicy().max_load_chars == DEFAULT_MAX_LOAD_CHARS == 20_000  # SkillTools' loading=
    assert Loading().max_load_chars == DEFAULT_MAX_LOAD_CHARS  # SkillsToolset's loading=


def test_the_load_options_are_declared_once_and_passed_through() -> None:
    """``max_load_chars`` and ``build_content`` are fields of the tools' load policy alone.

    The ADK toolset, the MCP server and ``skillfs serve`` take a policy object and pass it
    on unchanged: none of them declares the options again (each once did).
    """
    declared = []
    for path in sorted((ROOT / "skills_core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                names = [arg.arg for arg in [*node.args.args, *node.args.kwonlyargs]]
            elif isinstance(node, ast.ClassDef):
                names = [
                    item.target.id
                    for item in node.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                ]
            else:
                continue
            for name in {"max_load_chars", "build_content"} & set(names):
                declared.append(f"{path.relative_to(ROOT)}: {node.name}.{name}")
    assert sorted(declared) == [
        "skills_core/tools/_factory.py: LoadPolicy.build_content",
        "skills_core/tools/_factory.py: LoadPolicy.max_load_chars",
    ]
    assert issubclass(Loading, LoadPolicy)


def test_each_storage_and_format_knob_is_defined_in_exactly_one_class() -> None:
    homes = {
        "Limits": "backends/_limits.py",  # storage
        "FormatLimits": "skills_core/_format/models.py",  # format
    }
    knobs = {field.name for cls in (Limits, FormatLimits) for field in dataclasses.fields(cls)}
    found: dict[str, list[str]] = {}
    for package in ("backends", "skills_core"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.ClassDef):
                    continue
                for statement in node.body:
                    if not (
                        isinstance(statement, ast.AnnAssign)
                        and isinstance(statement.target, ast.Name)
                        and statement.target.id in knobs
                    ):
                        continue
                    where = f"{path.relative_to(ROOT)}: {node.name}"
                    found.setdefault(statement.target.id, []).append(where)
    expected = {
        field.name: [f"{homes[cls.__name__]}: {cls.__name__}"]
        for cls in (Limits, FormatLimits)
        for field in dataclasses.fields(cls)
    }
    assert found == expected


def test_no_two_knobs_share_a_name() -> None:
    storage = {field.name for field in dataclasses.fields(Limits)}
    format_ = {field.name for field in dataclasses.fields(FormatLimits)}
    tools = set(inspect.signature(SkillTools).parameters) | {
        field.name for field in dataclasses.fields(Loading)
    }
    assert not storage & format_
    assert not (storage | format_) & tools, (storage | format_) & tools
