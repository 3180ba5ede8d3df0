"""ScriptTool: ``run_skill_script`` from the model's call to the runner's outcome.

Checks come first and cost nothing: scripts enabled, arguments plain, the path confined and
listed by the skill, the interpreter allowed. The skill's folder is then found (or the skill
copied locally: a remote skill, a locked one, one whose scripts need the user's approval), the
approval checked against the copy's digest, an extensionless script's ``#!`` line read, and
the policy's :class:`~skills_core.tools.runners.base.ScriptRunner` runs it.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple

from backends.errors import echoed
from backends.paths import check_resource_path
from skills_core.catalog.catalog import SkillCatalog
from skills_core.codes import (
    INVALID_ARGUMENTS,
    RUNNER_UNAVAILABLE,
    SCRIPT_FAILED,
    SCRIPT_NOT_FOUND,
    SCRIPT_TIMEOUT,
    SCRIPTS_DISABLED,
    UNSUPPORTED_SCRIPT,
)
from skills_core.errors import RunnerUnavailableError, ScriptRunnerError
from skills_core.format.models import Skill
from skills_core.tools.command import ProcessOutcome
from skills_core.tools.interpreters import HEAD_BYTES, command_by_shebang
from skills_core.tools.policy import ScriptPolicy, script_arguments
from skills_core.tools.results import ToolResult, require_text, tool_error
from skills_core.tools.runners.base import ScriptRun, ScriptRunner
from skills_core.tools.runners.choice import default_runner
from skills_core.tools.script_approval import ScriptApprovals
from skills_core.tools.workspace import Workspace, Workspaces


@dataclass(frozen=True, slots=True)
class _Request:
    """A script run that passed every check needing no storage access."""

    policy: ScriptPolicy
    path: str
    command: tuple[str, ...] | None  # None: read the #! line
    arguments: tuple[str, ...]


class ScriptCheck(NamedTuple):
    """What checking a run found, without running it.

    Attributes:
        problem: Why the run cannot go ahead (a tool error), ``{}`` when it can.
        digest: The digest of the copy a checked skill's run was judged on (one whose scripts
            need the user's approval), ``None`` for any other.
    """

    problem: ToolResult
    digest: str | None = None


class ScriptTool:
    """Runs the scripts of one catalog's skills under one policy.

    Args:
        catalog: Where the skills come from.
        policy: Permission and limits; ``None`` keeps scripts off.
    """

    def __init__(self, catalog: SkillCatalog, policy: ScriptPolicy | None) -> None:
        self._catalog = catalog
        self._policy = policy
        self._workspaces = Workspaces(catalog)
        self._runner: ScriptRunner | None = policy.runner if policy else None
        self.approvals = ScriptApprovals(catalog)

    async def run(self, skill_name: Any, file_path: Any, args: Any) -> ToolResult:
        """Run one script; see :meth:`SkillTools.run_skill_script`."""
        prepared = await self._prepare(skill_name, file_path, args)
        if isinstance(prepared, dict):
            return prepared
        request, skill = prepared
        policy = request.policy
        async with self._workspace(skill_name, skill, request) as (folder, script, digest):
            if refusal := await self.approvals.refusal(skill_name, digest):
                return refusal
            command = request.command or await _command_from_file(policy, request.path, script)
            if isinstance(command, dict):
                return command
            run = ScriptRun(
                folder=folder,
                script=request.path,
                interpreter=command,
                arguments=request.arguments,
                files=tuple(entry.path for entry in skill.files),
                env=policy.environment(),
                time_limit=policy.timeout,
                max_output_bytes=policy.max_output_bytes,
                max_processes=policy.max_processes,
                max_copy_bytes=policy.max_workspace_bytes,
                max_scratch_bytes=policy.max_scratch_bytes,
                max_memory_bytes=policy.max_memory_bytes,
                network=policy.network,
                readable=policy.readable,
            )
            outcome = await self._execute(run)
        if isinstance(outcome, dict):
            return outcome
        result = _script_result(skill_name, request.path, outcome)
        if outcome.timed_out:
            message = f"the script ran past its {policy.timeout:g} s limit and was killed"
            return tool_error(SCRIPT_TIMEOUT, message, **result)
        return result

    async def check(self, skill_name: Any, file_path: Any, args: Any) -> ScriptCheck:
        """Everything :meth:`run` checks, without running."""
        prepared = await self._prepare(skill_name, file_path, args)
        if isinstance(prepared, dict):
            return ScriptCheck(prepared)
        request, skill = prepared
        if request.command is None or self.approvals.gated(skill_name):
            async with self._workspace(skill_name, skill, request) as (_, script, digest):
                problem = await self.approvals.refusal(skill_name, digest)
                if problem is None and request.command is None:
                    command = await _command_from_file(request.policy, request.path, script)
                    problem = command if isinstance(command, dict) else None
                return ScriptCheck(problem or {}, digest)
        return ScriptCheck({})

    async def close(self) -> None:
        """Delete the local copies made to run remote skills' scripts."""
        await self._workspaces.close()

    def _workspace(
        self, skill_name: str, skill: Skill, request: _Request
    ) -> AbstractAsyncContextManager[Workspace]:
        """Where the script runs: a copy of its own when its content needs approval."""
        return self._workspaces.script(
            skill_name,
            skill,
            request.path,
            max_bytes=request.policy.max_workspace_bytes,
            digested=self.approvals.gated(skill_name),
        )

    async def _execute(self, run: ScriptRun) -> ProcessOutcome | ToolResult:
        """The runner's outcome, or why the runner could not run the script."""
        if self._runner is None:
            self._runner = await default_runner()
        try:
            return await self._runner.run(run)
        except RunnerUnavailableError as exc:
            return tool_error(RUNNER_UNAVAILABLE, exc.message)
        except ScriptRunnerError as exc:
            return tool_error(SCRIPT_FAILED, exc.message)
        except OSError as exc:
            message = f"could not start {run.interpreter[0]!r}: {exc.strerror or exc}"
            return tool_error(SCRIPT_FAILED, message)

    async def _prepare(
        self, skill_name: Any, file_path: Any, args: Any
    ) -> tuple[_Request, Skill] | ToolResult:
        request = self._request(skill_name, file_path, args)
        if isinstance(request, dict):
            return request
        skill = await self._catalog.get(skill_name)
        if request.path not in {entry.path for entry in skill.files}:
            message = f"skill {skill_name!r} has no file {echoed(request.path)!r}"
            return tool_error(SCRIPT_NOT_FOUND, message)
        return request, skill

    def _request(self, skill_name: Any, file_path: Any, args: Any) -> _Request | ToolResult:
        """Check everything about a run that needs no storage access."""
        if self._policy is None:
            return tool_error(SCRIPTS_DISABLED, "running skill scripts is not enabled")
        if problem := require_text(skill_name=skill_name, file_path=file_path):
            return problem
        try:
            arguments = script_arguments(args)
        except ValueError as exc:
            return tool_error(INVALID_ARGUMENTS, str(exc))
        relative = check_resource_path(file_path, location=skill_name)
        command = self._policy.interpreter(relative)
        return _Request(self._policy, relative, command, tuple(arguments))


async def _command_from_file(
    policy: ScriptPolicy, path: str, script: str
) -> tuple[str, ...] | ToolResult:
    head = await asyncio.to_thread(_head, script)
    command = command_by_shebang(policy, path, head)
    return tool_error(UNSUPPORTED_SCRIPT, command) if isinstance(command, str) else command


def _head(path: str) -> bytes:
    with open(path, "rb") as script:
        return script.read(HEAD_BYTES)


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
