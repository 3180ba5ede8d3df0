"""The API of the "adk-skills" design (``adk_skills_agent``), served from any skillfs source.

A compatibility module (docs/adk.md, "The adk-skills design's API"): the shared skill tools
under the design's names (:data:`NAMES`), translating only its argument names and result
shapes. No name here shadows a primary one.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.llm_request import LlmRequest
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.tool_context import ToolContext

from backends._base import Backend
from backends._composite import CompositeBackend
from backends._errors import SkillNotFoundError, StorageError
from backends._local import open_skill_folder
from backends._memory import MemoryBackend
from backends._paths import check_relative_path
from backends.capabilities import local_folder
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog, verdicts_of
from skills_core._format.models import Skill, SkillMetadata, SkillProblem
from skills_core._skeleton import create_skeleton
from skills_core._tool_table import (
    LOAD_SKILL,
    LOAD_SKILL_RESOURCE,
    RUN_SKILL_SCRIPT,
    SKILL_NAME,
    ToolDeclaration,
    ToolNames,
)
from skills_core._trust.policy import TrustPolicy
from skills_core.adk._handlers import Handler, SkillTool, fixed, inject_state, run_confirmed
from skills_core.adk._toolset import RefreshGate, Source, open_sources
from skills_core.tools._content import (
    ToolResult,
    base_location,
    is_error,
    never_raises,
    require_text,
)
from skills_core.tools._factory import DEFAULT_MAX_RESOURCE_BYTES, LoadPolicy, SkillTools
from skills_core.tools._policy import ScriptPolicy

NAMES = ToolNames(
    load_skill="use_skill", load_skill_resource="read_reference", run_skill_script="run_script"
)
"""The design's names of the skill tools."""

USE_SKILL = (
    "Loads a skill: its full instructions and the folder its files are in. Call it when a "
    "task matches a skill's description below, before working on the task."
)
NAMED_ARGS = {
    "type": "object",
    "description": "Named arguments: {'file': 'a.pdf', 'verbose': true} runs the script with "
    "--file a.pdf --verbose (false or null leaves an option out).",
}


@dataclass(frozen=True, slots=True)
class SkillsConfig:
    """How a :class:`SkillsRegistry` loads and serves skills.

    ``scripts=None`` keeps ``run_script`` off; ``strict_validation`` refuses skills with any
    spec violation; ``max_resource_bytes`` is the design's ``max_reference_bytes``;
    ``refresh_every`` and ``trust`` mean what they mean to :func:`~skills_core.adk.with_skills`.
    """

    scripts: ScriptPolicy | None = None
    strict_validation: bool = False
    refresh_every: float | None = 5.0
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    trust: TrustPolicy | None = None


class SkillsRegistry:
    """Discover skills, read them, and make the ``use_skill`` family of ADK tools."""

    def __init__(self, config: SkillsConfig | None = None) -> None:
        self.config = config or SkillsConfig()
        self._sources: tuple[Backend, ...] = ()
        self._opened: tuple[Backend, ...] = ()  # opened here from paths and URLs: ours to close
        self.tools = self._serve(MemoryBackend())  # empty until discover(); the ADK tools use it
        self._gate = RefreshGate(self.tools.catalog, self.config.refresh_every)

    def __repr__(self) -> str:
        return f"SkillsRegistry(skills={len(self)})"

    def __len__(self) -> int:
        return len(self.catalog)

    def __contains__(self, name: object) -> bool:
        return name in self.catalog

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog behind the registry; its ``warnings`` name shadowed skills."""
        return self.tools.catalog

    async def discover(self, sources: Sequence[Source]) -> int:
        """Load the skills of ``sources`` after those discovered before; return the count.

        The earlier source wins a name clash (``SHADOWED`` in ``catalog.warnings``).

        Raises:
            ValueError: No source was given.
            UnsupportedSourceError: A URL names storage skillfs cannot open.
            SkillfsError: A source could not be listed; the registry is left as it was.
        """
        if isinstance(sources, str | os.PathLike) or not sources:
            raise ValueError("discover needs a list of paths, URLs or backends")
        backends, opened = open_sources(sources)
        members = (*self._sources, *backends)
        tools = self._serve(members[0] if len(members) == 1 else CompositeBackend(members))
        report = await tools.catalog.refresh()
        unavailable = tools.catalog.snapshot.unavailable  # sources listed without
        if not report.ok or unavailable:
            await asyncio.gather(*(backend.aclose() for backend in opened))
            report.raise_for_failure()
            raise StorageError(unavailable[0].message, location=unavailable[0].location)
        old, self.tools, self._sources = self.tools, tools, members
        self._opened += tuple(opened)
        self._gate = RefreshGate(tools.catalog, self.config.refresh_every)
        await old.close()
        return len(tools.catalog)

    def list_metadata(self) -> list[SkillMetadata]:
        """The metadata of every loaded skill, sorted by name."""
        return list(self.catalog.list())

    def get_metadata(self, name: str) -> SkillMetadata | None:
        """One skill's metadata, or ``None`` when no loaded skill has that name."""
        try:
            return self.catalog.metadata(name)
        except SkillNotFoundError:
            return None

    async def load_skill(self, name: str) -> Skill:
        """One skill (``SkillNotFoundError`` when no loaded skill has that name)."""
        return await self.catalog.get(name)

    def to_available_skills_xml(self, *, include_location: bool = False) -> str:
        """The ``<available_skills>`` block (with each SKILL.md's location if asked)."""
        return self.catalog.to_prompt(include_location=include_location)

    async def refresh_for_turn(self, turn: str) -> None:
        """Refresh the catalog at the start of an agent turn; see ``SkillsConfig``."""
        await self._gate.refresh_for_turn(turn)

    def create_use_skill_tool(self, *, include_skills_listing: bool = True) -> BaseTool:
        """The ``use_skill(name)`` tool; its description lists the current skills if asked.

        A long skill comes whole: the design has no way to read on.
        """

        def describe() -> str:
            if not include_skills_listing:
                return USE_SKILL
            return f"{USE_SKILL}\n\n{self.to_available_skills_xml()}"

        @never_raises
        async def use_skill(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
            if problem := require_text(name=args.get("name")):
                return problem
            result = await self.tools.load_skill(
                args["name"], prepare=lambda skill: inject_state(skill, context), whole=True
            )
            if is_error(result):
                return result
            folders = {path.split("/", 1)[0] for path in result["files"] if "/" in path}
            return {
                "skill_name": result["skill_name"],
                "base_directory": await self._folder(result["skill_name"]),
                "instructions": result["instructions"],
                "has_scripts": "scripts" in folders,
                "has_references": "references" in folders,
                "has_assets": "assets" in folders,
            }

        return self._tool(LOAD_SKILL, describe, {"name": SKILL_NAME}, use_skill)

    def create_read_reference_tool(self) -> BaseTool:
        """The ``read_reference(skill, reference)`` tool: a ``references/`` file."""

        @never_raises
        async def read_reference(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
            if problem := require_text(skill=args.get("skill"), reference=args.get("reference")):
                return problem
            skill, path = args["skill"], _inside("references", args["reference"])
            result = await self.tools.load_skill_resource(skill, path)
            if is_error(result):
                return result
            folder = await self._folder(skill)
            return {**result, "path": f"{folder}/{path}", "filename": posixpath.basename(path)}

        parameters = {
            "skill": SKILL_NAME,
            "reference": {
                "type": "string",
                "description": "A file in the skill's references/ folder: its name "
                "('api_docs.md') or its path below that folder ('forms/w2.md').",
            },
        }
        describe = fixed("Reads one of a skill's reference documents (files in references/).")
        return self._tool(LOAD_SKILL_RESOURCE, describe, parameters, read_reference)

    def create_run_script_tool(self) -> BaseTool:
        """The ``run_script(skill, script, args)`` tool (``returncode`` and ``success``).

        Raises:
            ValueError: ``config.scripts`` is ``None``: scripts are off.
        """
        if self.config.scripts is None:
            raise ValueError(
                "run_script needs a script policy: SkillsRegistry(SkillsConfig(scripts="
                "ScriptPolicy(...)))"
            )

        @never_raises
        async def run_script(args: Mapping[str, Any], context: ToolContext) -> ToolResult:
            if problem := require_text(skill=args.get("skill"), script=args.get("script")):
                return problem
            skill, path = args["skill"], _inside("scripts", args["script"])
            result = await run_confirmed(self.tools, context, skill, path, args.get("args"))
            if "exit_code" not in result:
                return result
            shaped = {key: value for key, value in result.items() if key != "exit_code"}
            shaped["returncode"] = result["exit_code"]
            shaped["success"] = result["exit_code"] == 0 and not is_error(result)
            return shaped

        parameters = {
            "skill": SKILL_NAME,
            "script": {
                "type": "string",
                "description": "A script in the skill's scripts/ folder, e.g. 'extract_text.py'.",
            },
            "args": NAMED_ARGS,
        }
        describe = fixed("Runs one of a skill's scripts and returns its output and exit code.")
        return self._tool(RUN_SKILL_SCRIPT, describe, parameters, run_script)

    async def close(self) -> None:
        """Delete script copies; close the sources opened here (backends passed in stay open)."""
        try:
            await self.tools.close()
        finally:
            await asyncio.gather(*(backend.aclose() for backend in self._opened))

    def _serve(self, backend: Backend) -> SkillTools:
        config = self.config
        catalog = SkillCatalog(backend, strict=config.strict_validation, trust=config.trust)
        loading = LoadPolicy(max_resource_bytes=config.max_resource_bytes)
        return SkillTools(catalog, scripts=config.scripts, loading=loading)

    async def _folder(self, name: str) -> str:
        """Where a skill lives: its folder on this machine when it has one, else its location."""
        entry = self.catalog.snapshot.loaded.get(name)
        if entry is None:
            return name
        folder = await local_folder(self.catalog.backend, entry.name)  # the storage key
        return folder if folder is not None else base_location(entry.location)

    def _tool(
        self,
        kind: str,
        describe: Callable[[], str],
        parameters: Mapping[str, Any],
        handler: Handler,
    ) -> SkillTool:
        required = tuple(key for key in parameters if key != "args")
        declaration = ToolDeclaration(getattr(NAMES, kind), "", parameters, required)
        return _TurnTool(self, declaration, describe=describe, handler=handler, kind=kind)


class _TurnTool(SkillTool):
    """A :class:`SkillTool` that lets its registry refresh as each agent turn begins."""

    def __init__(self, registry: SkillsRegistry, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._registry = registry

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Refresh (at most once per turn), then declare the tool as it is now."""
        await self._registry.refresh_for_turn(tool_context.invocation_id)
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)


def _inside(folder: str, path: str) -> str:
    """``path`` below ``folder/`` unless it names that folder already (``UnsafePathError``)."""
    relative = check_relative_path(path)
    return relative if relative.startswith(f"{folder}/") else f"{folder}/{relative}"


async def with_registry(
    agent: LlmAgent,
    sources: Sequence[Source],
    config: SkillsConfig | None = None,
    *,
    include_script_tool: bool = False,
    include_reference_tool: bool = True,
) -> LlmAgent:
    """Discover ``sources`` and give ``agent`` the ``use_skill`` tool; return the agent.

    The tools join ``agent.tools`` as one toolset, so closing the runner closes the registry;
    ``run_script`` needs ``config.scripts``.

    Raises:
        ValueError: No source was given, or scripts were asked for without a policy.
        SkillfsError: A source could not be opened or listed.
    """
    registry = SkillsRegistry(config)
    tools = [registry.create_use_skill_tool()]
    if include_reference_tool:
        tools.append(registry.create_read_reference_tool())
    if include_script_tool:
        tools.append(registry.create_run_script_tool())
    await registry.discover(sources)
    agent.tools.append(_RegistryToolset(registry, tools))
    return agent


class _RegistryToolset(BaseToolset):
    """A registry's tools as one toolset, which closes the registry when the runner closes."""

    def __init__(self, registry: SkillsRegistry, tools: Sequence[BaseTool]) -> None:
        super().__init__()
        self.registry = registry
        self._tools = list(tools)

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The tools, unchanged: each refreshes the registry itself as a turn begins."""
        return list(self._tools)

    async def close(self) -> None:
        """Close the registry."""
        await self.registry.close()


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The spec's verdict on one skill folder: messages, and ``problems`` with their codes."""

    valid: bool
    skill_path: str
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    problems: tuple[SkillProblem, ...]

    def __bool__(self) -> bool:
        return self.valid


async def validate_skill_folder(path: str | os.PathLike[str]) -> ValidationResult:
    """Check one local skill folder (or its SKILL.md) as ``skillfs validate`` does.

    A path holding no SKILL.md gives an invalid result (``READ_FAILED``).

    Raises:
        SkillfsError: The folder could not be listed.
    """
    checked = os.fspath(path)
    source = await asyncio.to_thread(open_skill_folder, checked)
    verdicts = []
    if source is not None:
        try:
            catalog = SkillCatalog(source, strict=True)
            (await catalog.refresh()).raise_for_failure()
            verdicts = verdicts_of(catalog)
        finally:
            await source.aclose()
    if not verdicts:
        missing = SkillProblem(None, checked, codes.READ_FAILED, "no SKILL.md in this folder")
        return ValidationResult(False, checked, (missing.message,), (), (missing,))
    errors, warnings = verdicts[0].errors, verdicts[0].warnings
    return ValidationResult(
        valid=not errors,
        skill_path=checked,
        errors=tuple(problem.message for problem in errors),
        warnings=tuple(problem.message for problem in warnings),
        problems=(*errors, *warnings),
    )


async def create_skill_template(
    output_dir: str | os.PathLike[str], name: str, description: str | None = None
) -> Path:
    """Write the skeleton ``skillfs new`` writes, ``output_dir/name``; return its folder.

    Raises:
        SkillValidationError: The name or description breaks the spec.
        FileExistsError: The folder exists already.
    """
    return await asyncio.to_thread(create_skeleton, Path(output_dir), name, description)


__all__ = [
    "ScriptPolicy",
    "SkillsConfig",
    "SkillsRegistry",
    "ValidationResult",
    "create_skill_template",
    "validate_skill_folder",
    "with_registry",
]
