"""SkillToolGuard in a real runner: the active skill's allowed-tools decide which calls run."""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.adk import ACTIVE_SKILL_KEY, SkillsToolset, SkillToolGuard
from tests.adk.scripted import Conversation, ScriptedLlm, call, last_response, responses, say

GIT_HELPER = """\
---
name: git-helper
description: Git chores.
allowed-tools: Bash(git:*) Read
---
Use git only.
"""
NOTES = "---\nname: notes\ndescription: Take notes.\n---\nWrite notes.\n"


class Shell:
    """Two tools with side effects, so a test can tell what really ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def tools(self) -> list[FunctionTool]:
        async def bash(command: str) -> dict[str, Any]:
            """Runs a shell command."""
            self.ran.append(command)
            return {"stdout": f"ran {command}"}

        async def write_file(path: str, text: str) -> dict[str, Any]:
            """Writes a file."""
            self.ran.append(f"write {path}")
            return {"written": path}

        return [FunctionTool(bash), FunctionTool(write_file)]


async def make_catalog() -> tuple[MemoryBackend, SkillCatalog]:
    backend = MemoryBackend({"git-helper": {"SKILL.md": GIT_HELPER}, "notes": {"SKILL.md": NOTES}})
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    return backend, catalog


def refused(detail: str) -> dict[str, Any]:
    return {
        "error": f"the active skill 'git-helper' does not permit calling {detail}; it allows: "
        "Bash(git:*), Read",
        "error_code": "TOOL_NOT_PERMITTED",
        "skill_name": "git-helper",
        "allowed_tools": ["Bash(git:*)", "Read"],
    }


async def test_the_plugin_refuses_what_the_loaded_skill_does_not_permit() -> None:
    _, catalog = await make_catalog()
    shell = Shell()
    model = ScriptedLlm(
        steps=[
            call("bash", command="ls"),  # no skill active yet: runs
            call("load_skill", skill_name="git-helper"),
            call("bash", command="git status"),
            call("bash", command="git status && rm -rf /"),
            call("write_file", path="notes.md", text="x"),
            call("load_skill", skill_name="notes"),  # skill tools always run
            call("write_file", path="notes.md", text="x"),  # notes permits everything
            say("Done."),
        ]
    )
    toolset = SkillsToolset(catalog, refresh_every=None)
    agent = LlmAgent(name="assistant", model=model, tools=[toolset, *shell.tools()])
    guard = SkillToolGuard(catalog, aliases={"bash": "Bash"})
    chat = Conversation(agent, plugins=[guard])
    events = await chat.send("Tidy the repository.")

    assert shell.ran == ["ls", "git status", "write notes.md"]
    results = [result for _, result in responses(events)]
    assert results[3] == refused("'bash' with 'git status && rm -rf /'")
    assert results[4] == refused("'write_file'")
    # The model sees the refusal as the tool's answer.
    assert last_response(model.requests[4], "bash") == results[3]
    session = await chat.runner.session_service.get_session(
        app_name="skillfs-tests", user_id="user", session_id=chat.session_id or ""
    )
    assert session is not None
    assert session.state[ACTIVE_SKILL_KEY] == "notes"
    await chat.close()


async def test_agent_callbacks_guard_a_prefixed_toolset() -> None:
    _, catalog = await make_catalog()
    shell = Shell()
    model = ScriptedLlm(
        steps=[
            call("skills_load_skill", skill_name="git-helper"),
            call("write_file", path="a.txt", text="x"),
            call("bash", command="git log"),
            say("Done."),
        ]
    )
    guard = SkillToolGuard(catalog, aliases={"bash": "Bash"})
    agent = LlmAgent(
        name="assistant",
        model=model,
        tools=[SkillsToolset(catalog, tool_name_prefix="skills"), *shell.tools()],
        before_tool_callback=guard.before_tool,
        after_tool_callback=guard.after_tool,
    )
    chat = Conversation(agent)
    events = await chat.send("Commit.")
    await chat.close()

    assert shell.ran == ["git log"]
    assert dict(responses(events))["write_file"] == refused("'write_file'")


async def test_a_skill_removed_while_active_lets_only_skill_tools_run() -> None:
    backend, catalog = await make_catalog()
    shell = Shell()
    model = ScriptedLlm(
        steps=[
            call("load_skill", skill_name="git-helper"),
            say("Loaded."),
            call("bash", command="git status"),
            call("list_skills"),
            say("Gone."),
        ]
    )
    agent = LlmAgent(
        name="assistant",
        model=model,
        tools=[SkillsToolset(catalog, refresh_every=0), *shell.tools()],
    )
    chat = Conversation(agent, plugins=[SkillToolGuard(catalog, aliases={"bash": "Bash"})])
    await chat.send("Load git.")
    backend.remove("git-helper")
    events = await chat.send("Status?")
    await chat.close()

    assert shell.ran == []
    results = dict(responses(events))
    assert results["bash"] == {
        "error": "the active skill 'git-helper' is no longer available, so only the skill "
        "tools may run; load a skill first",
        "error_code": "TOOL_NOT_PERMITTED",
        "skill_name": "git-helper",
    }
    assert results["list_skills"] == {"skills": [{"name": "notes", "description": "Take notes."}]}


async def test_always_allowed_tools_and_skills_without_rules_are_never_refused() -> None:
    _, catalog = await make_catalog()
    bash, write_file = Shell().tools()
    guard = SkillToolGuard(catalog, always_allowed={"write_file"})
    state = {ACTIVE_SKILL_KEY: "git-helper"}
    assert guard.refusal(write_file, {"path": "a"}, state) is None
    refusal = guard.refusal(bash, {"command": "git status"}, state)  # no alias: 'bash' != 'Bash'
    assert refusal is not None
    assert refusal["error_code"] == "TOOL_NOT_PERMITTED"
    assert guard.refusal(bash, {"command": "rm -rf /"}, {ACTIVE_SKILL_KEY: "notes"}) is None
    assert guard.refusal(bash, {"command": "rm -rf /"}, {}) is None
