"""The design's ADK tools - ``use_skill``, ``read_reference``, ``run_script`` - over the factory.

They only translate the design's argument names and result shapes: loading, confinement, size
caps and script running are :class:`~skills_core.tools.SkillTools`'s, exactly as for
``SkillsToolset``'s ``load_skill``, ``load_skill_resource`` and ``run_skill_script``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from google.adk.models.llm_request import LlmRequest
from google.adk.tools.tool_context import ToolContext

from backends.capabilities import local_folder
from backends.paths import check_relative_path
from skills_core.adk.handlers import run_confirmed
from skills_core.adk.inject import inject_state
from skills_core.adk.tool import Handler, SkillTool
from skills_core.catalog.catalog import SkillCatalog
from skills_core.tool_table import SKILL_NAME
from skills_core.tools.content import base_location
from skills_core.tools.results import ToolResult, is_error, never_raises, require_text

if TYPE_CHECKING:
    from skills_core.adk.adk_skills.registry import SkillsRegistry

USE_SKILL = (
    "Loads a skill: its full instructions and the folder its files are in. Call it when a "
    "task matches a skill's description below, before working on the task."
)
NAMED_ARGS = {
    "type": "object",
    "description": "Named arguments: {'file': 'a.pdf', 'verbose': true} runs the script with "
    "--file a.pdf --verbose (false or null leaves an option out).",
}


class TurnTool(SkillTool):
    """A :class:`SkillTool` that lets its registry refresh as each agent turn begins.

    ADK asks every tool for its declaration on every model request, so a refreshed catalog
    reaches ``use_skill``'s description in the same request.
    """

    def __init__(self, registry: SkillsRegistry, **options: Any) -> None:
        super().__init__(**options)
        self._registry = registry

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Refresh (at most once per turn), then declare the tool as it is now."""
        await self._registry.refresh_for_turn(tool_context.invocation_id)
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)


def use_skill_tool(registry: SkillsRegistry, *, include_skills_listing: bool) -> SkillTool:
    """``use_skill(name)``: ``{skill_name, base_directory, instructions, has_*}``."""

    def describe() -> str:
        if not include_skills_listing:
            return USE_SKILL
        return f"{USE_SKILL}\n\n{registry.to_available_skills_xml()}"

    @never_raises
    async def use_skill(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        tools = registry.tools
        if problem := require_text(name=args.get("name")):
            return problem
        result = await tools.load_skill(  # use_skill has no way to read on: all at once
            args["name"], prepare=lambda skill: inject_state(skill, context), whole=True
        )
        if is_error(result):
            return result
        folders = {path.split("/", 1)[0] for path in result["files"] if "/" in path}
        return {
            "skill_name": result["skill_name"],
            "base_directory": await skill_folder(tools.catalog, result["skill_name"]),
            "instructions": result["instructions"],
            "has_scripts": "scripts" in folders,
            "has_references": "references" in folders,
            "has_assets": "assets" in folders,
        }

    return _tool(registry, "use_skill", describe, {"name": SKILL_NAME}, use_skill)


def read_reference_tool(registry: SkillsRegistry) -> SkillTool:
    """``read_reference(skill, reference)``: a ``references/`` file, as ``load_skill_resource``."""

    @never_raises
    async def read_reference(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        tools = registry.tools
        if problem := require_text(skill=args.get("skill"), reference=args.get("reference")):
            return problem
        skill, path = args["skill"], inside("references", args["reference"])
        result = await tools.load_skill_resource(skill, path)
        if is_error(result):
            return result
        folder = await skill_folder(tools.catalog, skill)
        return {**result, "path": f"{folder}/{path}", "filename": posixpath.basename(path)}

    parameters = {
        "skill": SKILL_NAME,
        "reference": {
            "type": "string",
            "description": "A file in the skill's references/ folder: its name "
            "('api_docs.md') or its path below that folder ('forms/w2.md').",
        },
    }
    describe = _fixed("Reads one of a skill's reference documents (files in references/).")
    return _tool(registry, "read_reference", describe, parameters, read_reference)


def run_script_tool(registry: SkillsRegistry) -> SkillTool:
    """``run_script(skill, script, args)``: ``run_skill_script`` with ``returncode``/``success``."""

    @never_raises
    async def run_script(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
        if problem := require_text(skill=args.get("skill"), script=args.get("script")):
            return problem
        skill, path = args["skill"], inside("scripts", args["script"])
        result = await run_confirmed(registry.tools, context, skill, path, args.get("args"))
        return script_outcome(result)

    parameters = {
        "skill": SKILL_NAME,
        "script": {
            "type": "string",
            "description": "A script in the skill's scripts/ folder, e.g. 'extract_text.py'.",
        },
        "args": NAMED_ARGS,
    }
    describe = _fixed("Runs one of a skill's scripts and returns its output and exit code.")
    return _tool(registry, "run_script", describe, parameters, run_script)


def inside(folder: str, path: str) -> str:
    """``path`` as a path in the skill: below ``folder/`` unless it names that folder already.

    Raises:
        UnsafePathError: ``path`` is absolute or climbs with ``..``.
    """
    relative = check_relative_path(path)
    return relative if relative.startswith(f"{folder}/") else f"{folder}/{relative}"


async def skill_folder(catalog: SkillCatalog, name: str) -> str:
    """Where a skill lives: its folder on this machine when it has one, else its location."""
    entry = catalog.snapshot.loaded.get(name)
    if entry is None:
        return name
    folder = await local_folder(catalog.backend, entry.name)  # the storage key, not the name
    return folder if folder is not None else base_location(entry.location)


def script_outcome(result: ToolResult) -> ToolResult:
    """A run's result in the design's terms: ``exit_code`` becomes ``returncode`` + ``success``."""
    if "exit_code" not in result:
        return result
    shaped = {key: value for key, value in result.items() if key != "exit_code"}
    shaped["returncode"] = result["exit_code"]
    shaped["success"] = result["exit_code"] == 0 and not is_error(result)
    return shaped


def _tool(
    registry: SkillsRegistry,
    name: str,
    describe: Callable[[], str],
    parameters: Mapping[str, Any],
    handler: Handler,
) -> SkillTool:
    return TurnTool(
        registry,
        name=name,
        describe=describe,
        parameters=parameters,
        required=tuple(key for key in parameters if key != "args"),
        handler=handler,
    )


def _fixed(text: str) -> Callable[[], str]:
    return lambda: text
