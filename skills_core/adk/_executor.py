"""CodeExecutorRunner: skill scripts run by a google-adk code executor.

The executor gets one self-contained Python program: the skill's files, the run's spec and
the supervisor's source, which prints one marked result line
(:func:`~skills_core.tools._runners.supervisor.run_portable`). Isolation is the executor's
(docs/scripts.md).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import os
import stat
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, cast

from google.adk.code_executors.base_code_executor import BaseCodeExecutor
from google.adk.code_executors.code_execution_utils import CodeExecutionInput

from backends._base import FileEntry
from backends._paths import is_within
from skills_core._errors import RunnerUnavailableError, ScriptRunnerError
from skills_core.tools._policy import Captured, ProcessOutcome, ScriptRun
from skills_core.tools._runners.process import SUPERVISOR, with_status

if TYPE_CHECKING:
    from google.adk.agents.invocation_context import InvocationContext

_invocation: ContextVar[InvocationContext | None] = ContextVar(
    "skillfs_adk_invocation", default=None
)


@contextmanager
def running_in(invocation: InvocationContext) -> Iterator[None]:
    """Let script runs inside this block see the ADK invocation that asked for them."""
    token = _invocation.set(invocation)
    try:
        yield
    finally:
        _invocation.reset(token)


class CodeExecutorRunner:
    """Runs skill scripts through ``executor`` (``None``: the calling agent's)."""

    def __init__(self, executor: BaseCodeExecutor | None = None) -> None:
        self._executor = executor

    @property
    def name(self) -> str:
        """``"adk:"`` and the executor's class name."""
        return f"adk:{type(self._executor).__name__}" if self._executor else "adk:agent"

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run the script through the executor, in a worker thread.

        Raises:
            RunnerUnavailableError: No executor was given and the agent has none.
            ScriptRunnerError: The executor failed or returned no result.
        """
        invocation = _invocation.get()
        executor = self._executor or _agent_executor(invocation)
        code, marker = await asyncio.to_thread(build_program, run)
        try:
            result = await asyncio.to_thread(
                executor.execute_code,
                cast("InvocationContext", invocation),
                CodeExecutionInput(code=code),
            )
        except Exception as exc:  # an executor's failure is the run's, reported as a value
            raise ScriptRunnerError(f"{type(executor).__name__} failed: {exc}") from exc
        outcome = parse_result(marker, result.stdout or "")
        if outcome is None:
            detail = (result.stderr or "").strip()[-500:] or "no output"
            message = f"{type(executor).__name__} returned no result for the script: {detail}"
            raise ScriptRunnerError(message)
        return outcome

    def __repr__(self) -> str:
        return f"CodeExecutorRunner({self._executor!r})"


def _agent_executor(invocation: InvocationContext | None) -> BaseCodeExecutor:
    agent: Any = invocation.agent if invocation is not None else None
    executor = getattr(agent, "code_executor", None)
    if not isinstance(executor, BaseCodeExecutor):
        raise RunnerUnavailableError(
            "CodeExecutorRunner() runs scripts with the calling agent's code_executor, and "
            "this agent has none: give it one (LlmAgent(code_executor=...)) or pass an "
            "executor: CodeExecutorRunner(UnsafeLocalCodeExecutor())"
        )
    return executor


PYTHON = "{python}"
"""Stands for the executor's own Python in a carried interpreter command."""


def build_program(run: ScriptRun) -> tuple[str, str]:
    """The program that runs ``run`` wherever Python runs, and its result line's marker.

    Blocking: it reads the skill.

    Raises:
        ScriptRunnerError: A file leaves the skill folder, or the skill is over its copy limit.
    """
    marker = f"__skillfs_result_{uuid.uuid4().hex}__:"
    spec = {
        "files": _carried_files(run),
        "script": run.script,
        "interpreter": [PYTHON if word == sys.executable else word for word in run.interpreter],
        "arguments": list(run.arguments),
        "env": dict(run.env),
        "time_limit": run.policy.timeout,
        "max_output_bytes": run.policy.max_output_bytes,
        "marker": marker,
    }
    with open(SUPERVISOR, encoding="utf-8") as source:
        code = source.read()
    return f"{code}\n\nrun_portable({json.dumps(spec)!r})\n", marker


def parse_result(marker: str, stdout: str) -> ProcessOutcome | None:
    """The outcome the program printed after ``marker``, or ``None`` when it printed none."""
    lines = [line for line in stdout.splitlines() if line.startswith(marker)]
    if not lines:
        return None
    try:
        result = json.loads(lines[-1][len(marker) :])
        out, err = (
            Captured(base64.b64decode(result[name]), int(result[f"{name}_total"]))
            for name in ("stdout", "stderr")
        )
    except (ValueError, KeyError, TypeError, binascii.Error):
        return None
    status = str(result.get("status", ""))
    return with_status(ProcessOutcome(0, out, err, status == "timeout"), status)


def _carried_files(run: ScriptRun) -> dict[str, tuple[str, bool]]:
    folder = os.path.realpath(run.folder)
    carried: dict[str, tuple[str, bool]] = {}
    total, limit = 0, run.policy.max_workspace_bytes
    for path in run.files:
        real = os.path.realpath(os.path.join(folder, *path.split("/")))
        if not is_within(folder, real) or not os.path.isfile(real):
            raise ScriptRunnerError(f"{path!r} is not a file inside the skill", location=real)
        with open(real, "rb") as handle:
            data = handle.read(limit - total + 1)
        total += len(data)
        if total > limit:
            message = f"the skill is over the {limit}-byte limit for running it"
            raise ScriptRunnerError(message, location=folder)
        mode = stat.S_IMODE(os.stat(real).st_mode)
        executable = FileEntry(path, len(data), mode=mode).executable
        carried[path] = (base64.b64encode(data).decode(), executable)
    return carried
