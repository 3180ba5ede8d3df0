"""A real agent runs real scripts through each runner, ADK's own code executors included.

No container daemon runs on these machines, so google-adk's ``ContainerCodeExecutor`` cannot
start here (its constructor fails to reach Docker). Where it cannot, the container path is shown
by a fake of ADK's executor interface that runs the program as a container would - in an empty
folder, with none of the skill's host files and none of the agent's environment - and records
what it was handed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.code_executors.base_code_executor import BaseCodeExecutor
from google.adk.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from google.adk.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor
from pydantic import PrivateAttr

from backends.testing import BackendHarness
from skills_core import SkillCatalog
from skills_core.adk import CodeExecutorRunner, SkillsToolset
from skills_core.tools import ScriptPolicy
from skills_core.tools._policy import ScriptRunner
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.adk.skills import TREE, flat
from tests.scripts.support import make_runner

BRIEF = {
    "SKILL.md": "---\nname: brief\ndescription: Writes a brief.\n---\nRun scripts/task-brief.\n",
    "scripts/task-brief": '#!/usr/bin/env bash\necho "brief for $1 from $(basename "$PWD")"\n',
}


class ContainerLikeExecutor(BaseCodeExecutor):
    """ADK's executor interface, run as a container would run it; records every call."""

    _calls: list[tuple[str, Any]] = PrivateAttr(default_factory=list)

    def execute_code(
        self, invocation_context: InvocationContext, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        self._calls.append((code_execution_input.code, invocation_context))
        with tempfile.TemporaryDirectory() as empty:
            done = subprocess.run(
                [sys.executable, "-I", "-c", code_execution_input.code],
                cwd=empty,
                env={"PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        return CodeExecutionResult(
            stdout=done.stdout, stderr=done.stderr, exit_code=done.returncode
        )


def container_executor() -> BaseCodeExecutor:
    """A real ContainerCodeExecutor when a Docker daemon answers; else the fake above."""
    from google.adk.code_executors.container_code_executor import ContainerCodeExecutor

    try:
        return ContainerCodeExecutor(image="python:3.11-slim")
    except Exception:  # no daemon here: docker raises DockerException
        return ContainerLikeExecutor()


def runner_for(name: str) -> ScriptRunner:
    if name in ("sandbox", "process"):
        return make_runner(name)  # skips the sandbox without bwrap
    if name == "adk-unsafe-local":
        return CodeExecutorRunner(UnsafeLocalCodeExecutor())
    if name == "adk-agent-executor":
        return CodeExecutorRunner()  # the agent's code_executor, as ADK's SkillToolset does
    return CodeExecutorRunner(container_executor())


@pytest.fixture
async def catalog(memory_harness: BackendHarness) -> SkillCatalog:
    return SkillCatalog(await memory_harness.make_backend({**TREE, **flat("brief", BRIEF)}))


async def run_scripts(toolset: SkillsToolset, **agent_options: Any) -> list[dict[str, Any]]:
    """One turn in which the model runs a Python script and an extensionless bash script."""
    model = ScriptedLlm(
        steps=[
            call("run_skill_script", skill_name="pdf", file_path="scripts/fill.py", args=["Ada"]),
            call(
                "run_skill_script", skill_name="brief", file_path="scripts/task-brief", args=["Bo"]
            ),
            say("done"),
        ]
    )
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset], **agent_options))
    events = await chat.send("fill the form and write the brief")
    await chat.close()
    return [response for tool, response in responses(events) if tool == "run_skill_script"]


@pytest.fixture
async def toolset_for(catalog: SkillCatalog) -> AsyncIterator[Any]:
    made: list[SkillsToolset] = []

    def make(runner: ScriptRunner) -> SkillsToolset:
        made.append(SkillsToolset(catalog, scripts=ScriptPolicy(runner=runner)))
        return made[-1]

    yield make
    for toolset in made:
        await toolset.close()


@pytest.mark.parametrize(
    "name", ["sandbox", "process", "adk-unsafe-local", "adk-agent-executor", "adk-container"]
)
async def test_each_runner_runs_real_scripts_for_a_real_agent(toolset_for: Any, name: str) -> None:
    options = {"code_executor": UnsafeLocalCodeExecutor()} if name == "adk-agent-executor" else {}
    fill, brief = await run_scripts(toolset_for(runner_for(name)), **options)
    assert (fill["exit_code"], fill["stdout"]) == (0, "filled form for Ada\n"), fill
    assert brief["exit_code"] == 0, brief
    assert brief["stdout"].startswith("brief for Bo from skillfs-")  # a private copy of the skill


async def test_an_executor_elsewhere_gets_a_self_contained_program(toolset_for: Any) -> None:
    executor = ContainerLikeExecutor()
    fill, brief = await run_scripts(toolset_for(CodeExecutorRunner(executor)))
    assert fill["exit_code"] == brief["exit_code"] == 0
    (code, invocation), _ = executor._calls
    assert "skillfs-pdf-" not in code  # the skill travels inside the program, not as a path
    assert isinstance(invocation, InvocationContext)  # the agent's invocation reaches it
    assert invocation.agent.name == "assistant"


async def test_an_agent_without_an_executor_gets_a_clear_error(toolset_for: Any) -> None:
    fill, _ = await run_scripts(toolset_for(CodeExecutorRunner()))
    assert fill["error_code"] == "RUNNER_UNAVAILABLE"
    assert "LlmAgent(code_executor=...)" in fill["error"]
