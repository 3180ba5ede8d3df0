"""SkillTools: the skill tools every adapter serves, built once from a catalog.

Each tool returns a JSON-ready mapping, failures as error values, never exceptions. Adapters
(ADK, MCP) translate calling conventions and pass the option objects through unchanged.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec

from backends._errors import ResourceNotFoundError, echoed
from backends._limits import KIB
from backends._paths import check_resource_path
from skills_core import _telemetry as telemetry
from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import INVALID_ARGUMENTS
from skills_core._tool_table import (
    DEFAULT_NAMES,
    RUN_SKILL_SCRIPT,
    SEARCH_SKILLS,
    TOOLS,
    ToolDeclaration,
    ToolNames,
)
from skills_core.context._budget import ListingPolicy
from skills_core.context._search import search_index
from skills_core.tools._content import (
    ROOT_FOLDERS,
    ContentBuilder,
    SkillPreparer,
    ToolResult,
    fit_loaded,
    folder_listing,
    is_error,
    loaded_skill,
    never_raises,
    require_text,
    resource_result,
    skill_body,
    skill_uri,
    tool_error,
    whole_number,
)
from skills_core.tools._policy import ScriptPolicy
from skills_core.tools._scripts import ScriptCheck, ScriptTool

DEFAULT_MAX_RESOURCE_BYTES = 256 * KIB
"""Largest resource ``load_skill_resource`` returns: more would flood a model's context."""

DEFAULT_MAX_LOAD_CHARS = 20_000
"""Longest ``load_skill`` reply, in JSON characters (about 5,000 tokens)."""

DEFAULT_SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 20


@dataclass(frozen=True, slots=True)
class LoadPolicy:
    """What ``load_skill`` and ``load_skill_resource`` return.

    Attributes:
        build_content: Builds the instructions ``load_skill`` returns (default: the body).
        max_resource_bytes: Largest file ``load_skill_resource`` returns.
        max_load_chars: Longest ``load_skill`` reply; longer instructions come in parts, read
            on by ``section`` or ``offset``.
    """

    build_content: ContentBuilder = skill_body
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    max_load_chars: int = DEFAULT_MAX_LOAD_CHARS


P = ParamSpec("P")
ToolMethod = Callable[Concatenate["SkillTools", P], Awaitable[ToolResult]]


def traced(method: ToolMethod[P]) -> ToolMethod[P]:
    """A :class:`SkillTools` tool that :func:`never_raises`, in a ``skillfs.<tool>`` span."""
    tool = method.__name__
    signature = inspect.signature(method)
    guarded = never_raises(method)

    @functools.wraps(method)
    async def call(tools: SkillTools, /, *args: P.args, **kwargs: P.kwargs) -> ToolResult:
        with telemetry.span(f"skillfs.{tool}", {telemetry.TOOL_NAME: tool}) as current:
            result = await guarded(tools, *args, **kwargs)
            if current is not None:
                arguments = signature.bind(tools, *args, **kwargs).arguments
                current.set_attributes(tool_attributes(tools.catalog, arguments, result))
                if is_error(result):
                    telemetry.mark_error(current, result["error_code"], result["error"])
        return result

    return call


def tool_attributes(
    catalog: SkillCatalog, arguments: Mapping[str, Any], result: ToolResult
) -> dict[str, Any]:
    """The ``gen_ai.skill.*`` attributes of one call, as google-adk sets them on its spans."""
    attributes: dict[str, Any] = {}
    name, path = arguments.get("skill_name"), arguments.get("file_path")
    if isinstance(name, str):
        attributes[telemetry.SKILL_NAME] = name
        entry = catalog.snapshot.entries.get(name)
        if entry is not None and entry.metadata is not None:
            attributes[telemetry.SKILL_DESCRIPTION] = entry.metadata.description
            attributes[telemetry.SKILL_SOURCE_URI] = skill_uri(entry.location)
    if isinstance(path, str):
        attributes[telemetry.SKILL_RESOURCE_NAME] = path
    if isinstance(result.get("exit_code"), int):
        attributes[telemetry.EXIT_CODE] = result["exit_code"]
    if isinstance(result.get("skills"), list):
        attributes["skillfs.skills.count"] = len(result["skills"])
    return attributes


class SkillTools:
    """List, load, read and run the skills of one catalog (its current snapshot, every call).

    Args:
        catalog: Where the skills come from.
        scripts: Permission and limits for running scripts; ``None`` keeps them off.
        loading: What ``load_skill`` and ``load_skill_resource`` return.
        listing: What ``list_skills`` lists and in how many characters (default: all, whole).
        names: What the adapter calls the tools, as the listing's notes name them.
        inline_files: The adapter sends images, audio, video and PDF as inline data or blobs,
            so ``load_skill_resource`` returns their bytes (otherwise they are described).
    """

    def __init__(
        self,
        catalog: SkillCatalog,
        *,
        scripts: ScriptPolicy | None = None,
        loading: LoadPolicy | None = None,
        listing: ListingPolicy | None = None,
        names: ToolNames = DEFAULT_NAMES,
        inline_files: bool = False,
    ) -> None:
        self.catalog = catalog
        self.scripts = scripts
        self.listing = listing or ListingPolicy()
        self.names = names
        self._loading = loading or LoadPolicy()
        self._inline_files = inline_files
        self._script_tool = ScriptTool(catalog, scripts)
        self.script_approvals = self._script_tool.approvals  # for adapters that ask before a run

    def offered(self) -> list[ToolDeclaration]:
        """The tools to offer, in the table's order (search and scripts only when enabled)."""
        left_out = {
            SEARCH_SKILLS: not self.listing.searches,
            RUN_SKILL_SCRIPT: self.scripts is None,
        }
        return [tool for name, tool in TOOLS.items() if not left_out.get(name)]

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        """Run the tool of default name ``name`` with the arguments it declares of ``args``."""
        result: ToolResult = await getattr(self, name)(**TOOLS[name].arguments(args))
        return result

    @traced
    async def list_skills(self, *, context_path: str | None = None) -> ToolResult:
        """Every skill that applies, within the budget; ``note`` names unavailable sources.

        Args:
            context_path: The file being worked on; skills whose ``paths`` miss it are left out.
        """
        snapshot = self.catalog.snapshot
        listing = self.listing.listing(snapshot.skills, context_path, names=self.names)
        if unavailable := [problem.location or "" for problem in snapshot.unavailable]:
            sources = "a skill source is" if len(unavailable) == 1 else "skill sources are"
            where = ", ".join(unavailable)
            missing = f"Some skills may be missing: {sources} unavailable: {where}."
            listing["note"] = " ".join(filter(None, [listing.get("note"), missing]))
        return listing

    @traced
    async def search_skills(self, query: Any, limit: Any = DEFAULT_SEARCH_LIMIT) -> ToolResult:
        """The skills fitting ``query``, best first, each ``strong`` or ``weak`` (ListingPolicy)."""
        if problem := require_text(query=query):
            return problem
        limit = whole_number(limit)
        if limit is None or not 1 <= limit <= MAX_SEARCH_LIMIT:
            message = f"argument 'limit' must be a whole number from 1 to {MAX_SEARCH_LIMIT}"
            return tool_error(INVALID_ARGUMENTS, message)
        policy = self.listing.search_policy(limit)
        matches = await search_index(self.catalog).search_async(query, policy)
        found = [
            {
                "name": match.name,
                "description": match.description,
                "score": round(match.score, 3),
                "strength": match.strength,
            }
            for match in matches
        ]
        return {"query": echoed(query), "skills": found}

    @traced
    async def load_skill(
        self,
        skill_name: Any,
        section: Any = None,
        offset: Any = None,
        *,
        prepare: SkillPreparer | None = None,
        whole: bool = False,
    ) -> ToolResult:
        """A skill's instructions, where it lives and its files, within the bound.

        Longer instructions come in parts picked by ``section`` (a heading) or ``offset``.
        ``prepare`` adapts the skill to this call (an error value it returns is the result);
        ``whole`` returns every character at once (for a sub-agent's instruction).
        """
        if problem := require_text(skill_name=skill_name):
            return problem
        skill = await self.catalog.get(skill_name)
        if prepare is not None:
            prepared = await prepare(skill)
            if isinstance(prepared, dict):
                return prepared
            skill = prepared
        loaded = loaded_skill(skill, self._loading.build_content)
        if whole:
            return loaded
        return fit_loaded(loaded, self._loading.max_load_chars, section=section, offset=offset)

    @traced
    async def load_skill_resource(
        self, skill_name: Any, file_path: Any, as_bytes: Any = False
    ) -> ToolResult:
        """One file of a skill, size-capped: text, or a binary described unless ``as_bytes``.

        A folder's path (``"references"``, ``"."``) lists that folder instead, bounded.
        """
        if problem := require_text(skill_name=skill_name, file_path=file_path):
            return problem
        if as_bytes not in (True, False, None):
            return tool_error(INVALID_ARGUMENTS, "argument 'as_bytes' must be true or false")
        if file_path in ROOT_FOLDERS:
            return await self._folder(skill_name, ".")
        try:
            data = await self.catalog.read_resource(
                skill_name, file_path, max_bytes=self._loading.max_resource_bytes
            )
        except ResourceNotFoundError:
            folder = check_resource_path(file_path, location=skill_name)
            listing = await self._folder(skill_name, folder)
            if not listing:
                raise
            return listing
        return resource_result(
            skill_name, file_path, data, as_bytes=bool(as_bytes), inline=self._inline_files
        )

    async def _folder(self, skill_name: str, folder: str) -> ToolResult:
        """The listing of one folder of a skill; empty when no file lies below it."""
        skill = await self.catalog.get(skill_name)
        listing = folder_listing(skill.files, folder)
        return {"skill_name": skill_name, **listing} if listing else {}

    @traced
    async def run_skill_script(
        self, skill_name: Any, file_path: Any, args: Any = None
    ) -> ToolResult:
        """Run one of a skill's scripts under the script policy."""
        return await self._script_tool.run(skill_name, file_path, args)

    async def check_script(self, skill_name: Any, file_path: Any, args: Any = None) -> ScriptCheck:
        """Everything :meth:`run_skill_script` checks, without running (before a confirmation).

        Raises:
            SkillfsError: What :meth:`run_skill_script` would return as an error value.
        """
        return await self._script_tool.check(skill_name, file_path, args)

    async def close(self) -> None:
        """Delete the local copies made to run remote skills' scripts."""
        await self._script_tool.close()
