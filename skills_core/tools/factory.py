"""SkillTools: the skill tools every adapter serves, built once from a catalog.

Each tool is an async function returning a JSON-ready mapping; failures come back as error
values (:mod:`skills_core.tools.results`), never as exceptions. Adapters (ADK today) only
translate calling conventions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from backends.errors import ResourceNotFoundError
from backends.limits import KIB
from backends.paths import check_resource_path
from skills_core.catalog.catalog import SkillCatalog
from skills_core.context.search import search_index
from skills_core.context.selection import SelectionPolicy
from skills_core.format.models import Skill
from skills_core.tools.content import (
    ContentBuilder,
    SkillPreparer,
    loaded_skill,
    resource_result,
    skill_body,
)
from skills_core.tools.listing import ROOT_FOLDERS, folder_listing
from skills_core.tools.policy import ScriptPolicy, script_arguments
from skills_core.tools.process import ProcessOutcome, run_process
from skills_core.tools.results import (
    INVALID_ARGUMENTS,
    SCRIPT_FAILED,
    SCRIPT_NOT_FOUND,
    SCRIPT_TIMEOUT,
    SCRIPTS_DISABLED,
    UNSUPPORTED_SCRIPT,
    ToolResult,
    never_raises,
    tool_error,
)
from skills_core.tools.tracing import traced
from skills_core.tools.workspace import Workspaces

DEFAULT_MAX_RESOURCE_BYTES = 256 * KIB
"""Largest resource ``load_skill_resource`` returns: more would flood a model's context."""

DEFAULT_SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 20


class SkillTools:
    """List, load, read and run the skills of one catalog.

    The tools always read the catalog's current snapshot, so a refresh shows up in the very
    next call.

    Args:
        catalog: Where the skills come from.
        scripts: Permission and limits for running scripts; ``None`` keeps them off.
        build_content: Builds the instructions ``load_skill`` returns (default: the body).
        max_resource_bytes: Largest file ``load_skill_resource`` returns.
    """

    def __init__(
        self,
        catalog: SkillCatalog,
        *,
        scripts: ScriptPolicy | None = None,
        build_content: ContentBuilder = skill_body,
        max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
    ) -> None:
        self._catalog = catalog
        self._scripts = scripts
        self._build_content = build_content
        self._max_resource_bytes = max_resource_bytes
        self._workspaces = Workspaces(catalog)

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog the tools read."""
        return self._catalog

    @property
    def scripts(self) -> ScriptPolicy | None:
        """The script policy, or ``None`` when scripts are off."""
        return self._scripts

    @traced("list_skills")
    @never_raises
    async def list_skills(self) -> ToolResult:
        """Every loaded skill's name and description."""
        return {
            "skills": [
                {"name": meta.name, "description": meta.description}
                for meta in self._catalog.list()
            ]
        }

    @traced("search_skills")
    @never_raises
    async def search_skills(self, query: Any, limit: Any = DEFAULT_SEARCH_LIMIT) -> ToolResult:
        """The skills that best fit ``query`` (ranked search), best first, with descriptions.

        Words no skill fits give an empty list; see :mod:`skills_core.context.search`.
        """
        if problem := require_text(query=query):
            return problem
        if isinstance(limit, float) and limit.is_integer():  # JSON numbers may arrive as 5.0
            limit = int(limit)
        if type(limit) is not int or not 1 <= limit <= MAX_SEARCH_LIMIT:
            message = f"argument 'limit' must be a whole number from 1 to {MAX_SEARCH_LIMIT}"
            return tool_error(INVALID_ARGUMENTS, message)
        policy = SelectionPolicy(top_k=limit)
        matches = await search_index(self._catalog).search_async(query, policy)
        found = [{"name": match.name, "description": match.description} for match in matches]
        return {"query": query, "skills": found}

    @traced("load_skill")
    @never_raises
    async def load_skill(
        self, skill_name: Any, *, prepare: SkillPreparer | None = None
    ) -> ToolResult:
        """A skill's instructions, where it lives and the files it holds.

        ``prepare``, when given, adapts the skill to this call before its content is built;
        an error value it returns is returned as is.
        """
        if problem := require_text(skill_name=skill_name):
            return problem
        skill = await self._catalog.get(skill_name)
        if prepare is not None:
            prepared = await prepare(skill)
            if isinstance(prepared, dict):
                return prepared
            skill = prepared
        return loaded_skill(skill, self._build_content)

    @traced("load_skill_resource")
    @never_raises
    async def load_skill_resource(
        self, skill_name: Any, file_path: Any, as_bytes: Any = False
    ) -> ToolResult:
        """One file of a skill, size-capped, as :mod:`skills_core.tools.filetypes` decides.

        Text comes as text, images, audio, video and PDF as base64, other binary files as a
        description unless ``as_bytes`` is true. A folder's path (``"references"``, ``"."``
        for the skill's own) lists that folder instead, bounded: what a model asks for after
        ``load_skill`` summarised a big skill.
        """
        if problem := require_text(skill_name=skill_name, file_path=file_path):
            return problem
        if as_bytes not in (True, False, None):
            return tool_error(INVALID_ARGUMENTS, "argument 'as_bytes' must be true or false")
        if file_path in ROOT_FOLDERS:
            return await self._folder(skill_name, ".")
        try:
            data = await self._catalog.read_resource(
                skill_name, file_path, max_bytes=self._max_resource_bytes
            )
        except ResourceNotFoundError:
            folder = check_resource_path(file_path, location=skill_name)
            listing = await self._folder(skill_name, folder)
            if not listing:
                raise
            return listing
        return resource_result(skill_name, file_path, data, as_bytes=bool(as_bytes))

    async def _folder(self, skill_name: str, folder: str) -> ToolResult:
        """The listing of one folder of a skill; empty when no file lies below it."""
        skill = await self._catalog.get(skill_name)
        listing = folder_listing(skill.files, folder)
        return {"skill_name": skill_name, **listing} if listing else {}

    @traced("run_skill_script")
    @never_raises
    async def run_skill_script(
        self, skill_name: Any, file_path: Any, args: Any = None
    ) -> ToolResult:
        """Run one of a skill's scripts under the script policy; see :class:`ScriptPolicy`."""
        prepared = await self._prepare_script(skill_name, file_path, args)
        if isinstance(prepared, dict):
            return prepared
        request, skill = prepared
        workspace = self._workspaces.script(
            skill_name, skill, request.path, max_bytes=request.policy.max_workspace_bytes
        )
        async with workspace as (folder, script):
            try:
                outcome = await run_process(
                    [*request.interpreter, script, *request.arguments],
                    cwd=folder,
                    env=request.policy.environment(),
                    time_limit=request.policy.timeout,
                    max_output_bytes=request.policy.max_output_bytes,
                )
            except OSError as exc:
                message = f"could not start {request.interpreter[0]!r}: {exc.strerror or exc}"
                return tool_error(SCRIPT_FAILED, message)
        result = _script_result(skill_name, request.path, outcome)
        if outcome.timed_out:
            message = f"the script ran past its {request.policy.timeout:g} s limit and was killed"
            return tool_error(SCRIPT_TIMEOUT, message, **result)
        return result

    @never_raises
    async def check_script(self, skill_name: Any, file_path: Any, args: Any = None) -> ToolResult:
        """Everything :meth:`run_skill_script` checks, without running: ``{}`` when it may run.

        Adapters call this before asking a user to confirm a run that would fail anyway.
        """
        prepared = await self._prepare_script(skill_name, file_path, args)
        return prepared if isinstance(prepared, dict) else {}

    async def _prepare_script(
        self, skill_name: Any, file_path: Any, args: Any
    ) -> tuple[_Request, Skill] | ToolResult:
        request = self._script_request(skill_name, file_path, args)
        if isinstance(request, dict):
            return request
        skill = await self._catalog.get(skill_name)
        if request.path not in {entry.path for entry in skill.files}:
            message = f"skill {skill_name!r} has no file {request.path!r}"
            return tool_error(SCRIPT_NOT_FOUND, message)
        return request, skill

    def _script_request(self, skill_name: Any, file_path: Any, args: Any) -> _Request | ToolResult:
        """Check everything about a run that needs no storage access."""
        if self._scripts is None:
            return tool_error(SCRIPTS_DISABLED, "running skill scripts is not enabled")
        if problem := require_text(skill_name=skill_name, file_path=file_path):
            return problem
        try:
            arguments = script_arguments(args)
        except ValueError as exc:
            return tool_error(INVALID_ARGUMENTS, str(exc))
        relative = check_resource_path(file_path, location=skill_name)
        interpreter = self._scripts.interpreter(relative)
        if interpreter is None:
            allowed = ", ".join(sorted(self._scripts.interpreters)) or "none"
            message = f"no interpreter is configured for {relative!r} (allowed: {allowed})"
            return tool_error(UNSUPPORTED_SCRIPT, message)
        return _Request(self._scripts, relative, interpreter, tuple(arguments))

    async def close(self) -> None:
        """Delete the local copies made to run remote skills' scripts."""
        await self._workspaces.close()


@dataclass(frozen=True, slots=True)
class _Request:
    """A script run that passed every check needing no storage access."""

    policy: ScriptPolicy
    path: str
    interpreter: tuple[str, ...]
    arguments: tuple[str, ...]


def require_text(**arguments: Any) -> ToolResult | None:
    """An ``INVALID_ARGUMENTS`` error naming every argument that is not a non-empty string."""
    missing = [name for name, value in arguments.items() if not isinstance(value, str) or not value]
    if not missing:
        return None
    names = ", ".join(repr(name) for name in missing)
    return tool_error(INVALID_ARGUMENTS, f"argument {names} must be a non-empty string")


def _script_result(skill_name: str, path: str, outcome: ProcessOutcome) -> ToolResult:
    return {
        "skill_name": skill_name,
        "file_path": path,
        "exit_code": outcome.exit_code,
        "stdout": outcome.stdout.text(),
        "stderr": outcome.stderr.text(),
        "stdout_truncated": outcome.stdout.truncated,
        "stderr_truncated": outcome.stderr.truncated,
    }
