"""While the model acts on an MCP skill nobody approved, no code runs on this machine: not the
agent's own code tools, not its code executor (SEP-2640, "no implicit local execution"); a
cloned project's skills gate alike, and so does a skill the toolset's modes show the model (an
injected message, a coordinator's instruction). A real server (the official SDK's, over HTTP),
a real agent and runner, a real code executor process."""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor
from google.adk.runners import Runner
from google.adk.tools import FunctionTool

from backends import CompositeBackend, LocalBackend
from backends._mcp.backend import McpSkillsBackend
from backends._scopes import project_backend
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core._trust.approvals import ApprovalStore
from skills_core._trust.policy import TrustPolicy
from skills_core.adk import AutoSkillsPlugin, SkillContextProvider, SkillsToolset
from skills_core.adk.testing import Step
from skills_core.context._selection import SelectionPolicy
from skills_core.context._turns import (
    ContextCoordinator,
    CoordinatorConfig,
    ToolMap,
    ValidationMode,
)
from skills_core.tools import ScriptPolicy, SkillTools
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say, system_text
from tests.adk.test_script_approvals import project_skills
from tests.mcp.conftest import write_tree
from tests.mcp.harness import ServedFolder
from tests.mcp.recording import RequestLog


@pytest.fixture
async def catalog(backend: McpSkillsBackend, store: ApprovalStore) -> SkillCatalog:
    """The served skills, listed, trusting the user's approvals."""
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    return catalog


@pytest.fixture
async def store(tmp_path: Path) -> ApprovalStore:
    return await asyncio.to_thread(ApprovalStore, tmp_path / "cache")


LOAD_THEN_BASH = [call("load_skill", skill_name="deploy"), call("bash", command="make deploy")]


def refusal(served: ServedFolder, running: str) -> str:
    return (
        f"skill 'deploy' may not run code while the model acts on it ({running}): skills "
        "served over MCP run no script until the user approves its content; the user can "
        f"approve this content with: skillfs approve {shlex.quote(f'mcp+{served.url}#team')} "
        "deploy --scripts"
    )


class Agent:
    """An agent with MCP skills and a code tool of its own that records what it ran."""

    def __init__(self, catalog: SkillCatalog, steps: Sequence[Step]) -> None:
        self.ran: list[str] = []

        async def bash(command: str) -> dict[str, Any]:
            """Runs a shell command."""
            self.ran.append(command)
            return {"stdout": f"ran {command}"}

        self.model = ScriptedLlm(steps=[*steps, say("Done.")])
        policy = ScriptPolicy(code_tools=("bash",))
        toolset = SkillsToolset(catalog, scripts=policy, refresh_every=None)
        self.agent = LlmAgent(
            name="assistant", model=self.model, tools=[toolset, FunctionTool(bash)]
        )

    async def turn(self, session: Conversation | None = None) -> list[tuple[str, dict[str, Any]]]:
        """One turn, in a new session or (with a new runner) in ``session``'s: tool answers."""
        runner = None
        if session is not None:
            service = session.runner.session_service
            runner = Runner(agent=self.agent, app_name="skillfs-tests", session_service=service)
        chat = Conversation(self.agent, runner=runner)
        chat.session_id = session.session_id if session else None
        try:
            return responses(await chat.send("Ship it."))
        finally:
            await chat.close()


def code_results(model: ScriptedLlm) -> list[str | None]:
    """What the model was last told its code did."""
    return [
        part.code_execution_result.output
        for content in model.requests[-1].contents
        for part in content.parts or []
        if part.code_execution_result is not None
    ]


async def approve(catalog: SkillCatalog, name: str = "deploy") -> None:
    """The user approves the current content of skill ``name`` (as ``skillfs approve`` does)."""
    tools = SkillTools(catalog, scripts=ScriptPolicy())
    await tools.script_approvals.approve(name)


async def test_a_code_tool_is_refused_after_an_unapproved_mcp_skill_and_runs_once_approved(
    served: ServedFolder, log: RequestLog, catalog: SkillCatalog
) -> None:
    log.take()

    agent = Agent(catalog, [call("bash", command="ls"), *LOAD_THEN_BASH])
    answers = await agent.turn()
    assert log.take() == {"resources/read": 1}  # the SKILL.md: the digest is the entry's
    assert answers[0] == ("bash", {"stdout": "ran ls"})  # no skill shown yet
    assert answers[2] == (
        "bash",
        {"error": refusal(served, "a call of 'bash'"), "error_code": codes.SCRIPT_NOT_APPROVED},
    )
    assert agent.ran == ["ls"]  # before: ["ls", "make deploy"], and nobody asked

    await approve(catalog)
    agent = Agent(catalog, LOAD_THEN_BASH)
    assert (await agent.turn())[1] == ("bash", {"stdout": "ran make deploy"})
    assert agent.ran == ["make deploy"]

    await served.write("deploy/scripts/ship.sh", b"echo changed\n")  # a new content
    await catalog.refresh()
    agent = Agent(catalog, LOAD_THEN_BASH)
    assert (await agent.turn())[1][1]["error_code"] == codes.SCRIPT_NOT_APPROVED
    assert agent.ran == []


async def test_the_gate_holds_a_session_a_new_agent_resumes_and_a_skill_no_longer_served(
    served: ServedFolder, catalog: SkillCatalog
) -> None:
    first = Conversation(Agent(catalog, [call("load_skill", skill_name="deploy")]).agent)
    await first.send("Ship it.")

    later = Agent(catalog, [call("bash", command="make deploy")])  # a new process's
    assert (await later.turn(first))[0][1]["error_code"] == codes.SCRIPT_NOT_APPROVED

    await served.delete_skill("deploy")
    await catalog.refresh()
    gone = Agent(catalog, [call("bash", command="make deploy")])
    assert (await gone.turn(first))[0][1] == {
        "error": "skill 'deploy', shown to the model in this session, is no longer served: its "
        "content cannot be approved, so no code runs in this session (a call of 'bash')",
        "error_code": codes.SCRIPT_NOT_APPROVED,
    }
    assert later.ran == gone.ran == []
    await first.close()


async def test_a_code_tool_runs_after_a_local_skill_beside_an_mcp_source(
    backend: McpSkillsBackend, store: ApprovalStore, tmp_path: Path
) -> None:
    notes = {"notes/SKILL.md": "---\nname: notes\ndescription: Notes.\n---\nWrite.\n"}
    root = await asyncio.to_thread(write_tree, tmp_path / "local", notes)
    catalog = SkillCatalog(
        CompositeBackend([LocalBackend(root), backend]), trust=TrustPolicy(approvals=store)
    )
    await catalog.refresh()
    agent = Agent(catalog, [call("load_skill", skill_name="notes"), call("bash", command="ls")])
    assert (await agent.turn())[1] == ("bash", {"stdout": "ran ls"})
    assert agent.ran == ["ls"]


async def test_a_cloned_projects_skill_holds_code_tools_alike(
    store: ApprovalStore, tmp_path: Path
) -> None:
    await asyncio.to_thread(project_skills, tmp_path)
    backend = await project_backend(tmp_path / "repo", home=tmp_path / "home")
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    steps = [call("load_skill", skill_name="pdf"), call("bash", command="ls")]
    refused = await Agent(catalog, steps).turn()
    assert refused[1][1]["error_code"] == codes.SCRIPT_NOT_APPROVED

    await approve(catalog, "pdf")
    assert (await Agent(catalog, steps).turn())[1] == ("bash", {"stdout": "ran ls"})


async def test_the_code_executor_runs_nothing_after_an_unapproved_mcp_skill(
    served: ServedFolder, catalog: SkillCatalog, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    code = f"```python\nopen({str(marker)!r}, 'w').write('ran')\n```"

    async def turn() -> ScriptedLlm:
        model = ScriptedLlm(steps=[call("load_skill", skill_name="deploy"), say(code), say("No.")])
        toolset = SkillsToolset(catalog, scripts=ScriptPolicy(), refresh_every=None)
        executor = UnsafeLocalCodeExecutor()
        agent = LlmAgent(name="assistant", model=model, tools=[toolset], code_executor=executor)
        chat = Conversation(agent)
        try:
            await chat.send("Ship it.")
        finally:
            await chat.close()
        return model

    model = await turn()
    assert not marker.exists()  # before: the code ran, and nobody asked
    expected = refusal(served, "the agent's code executor")
    assert code_results(model) == [f"{expected} [SCRIPT_NOT_APPROVED]"]

    await approve(catalog)
    await turn()
    assert marker.read_text() == "ran"


LOOSE = SelectionPolicy(min_score=0.1)


def code_tool(ran: list[str], name: str = "bash") -> FunctionTool:
    """A shell tool of the agent's own, recording what it ran."""

    async def run(command: str) -> dict[str, Any]:
        """Runs a shell command."""
        ran.append(command)
        return {"stdout": f"ran {command}"}

    tool = FunctionTool(run)
    tool.name = name
    return tool


async def test_a_skill_the_plugin_injects_holds_code_tools_as_a_loaded_one(
    served: ServedFolder, catalog: SkillCatalog
) -> None:
    ran: list[str] = []
    model = ScriptedLlm(steps=[call("bash", command="make deploy"), say("Done.")])
    policy = ScriptPolicy(code_tools=("bash",))
    tools = [SkillsToolset(catalog, scripts=policy, refresh_every=None), code_tool(ran)]
    plugin = AutoSkillsPlugin(catalog, policy=LOOSE, refresh_every=None)
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=tools), plugins=[plugin])
    try:
        answers = responses(await chat.send("Ship the app."))
    finally:
        await chat.close()
    assert "[skill:deploy]" in str(model.requests[0].contents[0])  # injected, never loaded
    assert answers == [
        (
            "bash",
            {
                "error": refusal(served, "a call of 'bash'"),
                "error_code": codes.SCRIPT_NOT_APPROVED,
            },
        )
    ]
    assert ran == []  # before: ["make deploy"], and nobody asked


async def test_the_plugin_as_a_mode_of_a_toolset_gates_and_opens_once_approved(
    catalog: SkillCatalog,
) -> None:
    policy = ScriptPolicy(code_tools=("bash",))
    toolset = SkillsToolset(catalog, scripts=policy, refresh_every=None)

    async def turn() -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
        ran: list[str] = []
        model = ScriptedLlm(steps=[call("bash", command="make deploy"), say("Done.")])
        agent = LlmAgent(name="assistant", model=model, tools=[code_tool(ran)])
        chat = Conversation(agent, plugins=[AutoSkillsPlugin(toolset, policy=LOOSE)])
        try:
            return responses(await chat.send("Ship the app.")), ran
        finally:
            await chat.close()

    answers, ran = await turn()
    assert answers[0][1]["error_code"] == codes.SCRIPT_NOT_APPROVED
    assert ran == []
    await approve(catalog)
    assert await turn() == ([("bash", {"stdout": "ran make deploy"})], ["make deploy"])


async def test_a_skill_the_coordinator_binds_holds_the_code_executor(
    served: ServedFolder, catalog: SkillCatalog, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    code = f"```python\nopen({str(marker)!r}, 'w').write('ran')\n```"
    model = ScriptedLlm(steps=[say(code), say("No.")])
    permissive = CoordinatorConfig(LOOSE, validation_mode=ValidationMode.PERMISSIVE)
    provider = SkillContextProvider(ContextCoordinator(catalog, ToolMap([]), permissive))
    agent = LlmAgent(
        name="assistant",
        model=model,
        instruction=provider.instruction,
        tools=[provider.toolset],
        code_executor=UnsafeLocalCodeExecutor(),
    )
    chat = Conversation(agent)
    try:
        await chat.send("Ship the app.")
    finally:
        await chat.close()
    assert "[skill:deploy]" in system_text(model.requests[0])
    assert not marker.exists()  # before: the code ran, and nobody asked
    expected = refusal(served, "the agent's code executor")
    assert code_results(model) == [f"{expected} [SCRIPT_NOT_APPROVED]"]


async def test_the_coordinator_as_a_mode_of_a_toolset_holds_code_tools(
    served: ServedFolder, catalog: SkillCatalog
) -> None:
    policy = ScriptPolicy(code_tools=("bash",))
    toolset = SkillsToolset(catalog, scripts=policy, refresh_every=None)

    async def turn() -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
        ran: list[str] = []
        coordinator = ContextCoordinator(catalog, ToolMap([]), CoordinatorConfig(LOOSE))
        provider = SkillContextProvider(coordinator, toolset=toolset)
        model = ScriptedLlm(steps=[call("bash", command="make deploy"), say("Done.")])
        tools = [provider.toolset, code_tool(ran)]
        agent = LlmAgent(
            name="assistant", model=model, instruction=provider.instruction, tools=tools
        )
        chat = Conversation(agent)
        try:
            return responses(await chat.send("Ship the app.")), ran
        finally:
            await chat.close()

    answers, ran = await turn()
    assert answers == [
        (
            "bash",
            {
                "error": refusal(served, "a call of 'bash'"),
                "error_code": codes.SCRIPT_NOT_APPROVED,
            },
        )
    ]
    assert ran == []
    await approve(catalog)
    assert await turn() == ([("bash", {"stdout": "ran make deploy"})], ["make deploy"])
