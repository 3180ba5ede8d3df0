"""CodeExecutorRunner: skill scripts run by a google-adk code executor.

ADK users who already run model code in a container, on GKE, in Vertex AI or in the unsafe
local executor can run skill scripts there too. The runner hands the executor one
self-contained Python program (:mod:`skills_core.tools.runners.portable`) carrying the skill's
files, as google-adk's own ``SkillToolset`` does, and reads the script's exit code and output
back from the one result line it prints.

Isolation is the executor's: ``UnsafeLocalCodeExecutor`` runs the program as a plain local
process with the agent's whole environment (the script itself gets the policy's scrubbed
environment, but can read its parent's through ``/proc``); a container executor isolates what
its container isolates. Inside, the program still kills every process the script started when
it ends, and stops it after the policy's time limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, cast

from google.adk.code_executors.base_code_executor import BaseCodeExecutor
from google.adk.code_executors.code_execution_utils import CodeExecutionInput

from skills_core.errors import RunnerUnavailableError, ScriptRunnerError
from skills_core.tools.command import ProcessOutcome
from skills_core.tools.runners.base import ScriptRun
from skills_core.tools.runners.portable import build_program, parse_result

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
    """Runs skill scripts through a google-adk :class:`BaseCodeExecutor`.

    Args:
        executor: The executor; ``None`` uses the calling agent's ``code_executor``, as
            google-adk's ``SkillToolset`` does.
    """

    def __init__(self, executor: BaseCodeExecutor | None = None) -> None:
        self._executor = executor

    @property
    def name(self) -> str:
        """``"adk:"`` and the executor's class name."""
        return f"adk:{type(self._executor).__name__}" if self._executor else "adk:agent"

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run the script through the executor (in a worker thread: executors block).

        Raises:
            RunnerUnavailableError: No executor was given and the agent has none.
            ScriptRunnerError: The executor failed or returned no result.
        """
        invocation = _invocation.get()
        executor = self._executor or _agent_executor(invocation)
        program = await asyncio.to_thread(build_program, run)
        try:
            result = await asyncio.to_thread(
                executor.execute_code,
                cast("InvocationContext", invocation),
                CodeExecutionInput(code=program.code),
            )
        except Exception as exc:  # an executor's failure is the run's, reported as a value
            raise ScriptRunnerError(f"{type(executor).__name__} failed: {exc}") from exc
        outcome = parse_result(program, result.stdout or "")
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
