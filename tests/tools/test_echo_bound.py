"""A megabyte-long argument is quoted by its first characters and its length, never whole.

Every tool, called by a model through a real ADK runner, answers a 1 MB skill name, section,
path, script option or query within a small bound; so does the guard quoting a refused call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool

from backends import MemoryBackend
from backends._errors import MAX_ECHOED_CHARS, echoed
from skills_core import SkillCatalog
from skills_core.adk import Listing, SkillsToolset, SkillToolGuard
from skills_core.tools._policy import ScriptPolicy
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.adk.test_tool_guard import GIT_HELPER
from tests.tools.skillset import PDF_SKILL

MB = 1_000_000
BIG = "x" * MB
BOUND = 1_000
"""Longest reply to any of these calls, in JSON characters (the load bound is 20,000)."""

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_skills", {"query": BIG}),
    ("load_skill", {"skill_name": BIG}),
    ("load_skill", {"skill_name": "pdf", "section": BIG}),
    ("load_skill_resource", {"skill_name": BIG, "file_path": "references/forms.md"}),
    ("load_skill_resource", {"skill_name": "pdf", "file_path": "../" + BIG}),
    ("load_skill_resource", {"skill_name": "pdf", "file_path": "/" + BIG}),
    ("load_skill_resource", {"skill_name": "pdf", "file_path": BIG + "\\"}),
    ("load_skill_resource", {"skill_name": "pdf", "file_path": ".git/" + BIG}),
    ("run_skill_script", {"skill_name": BIG, "file_path": "scripts/hello.py"}),
    ("run_skill_script", {"skill_name": "pdf", "file_path": "scripts/" + BIG}),
    ("run_skill_script", {"skill_name": "pdf", "file_path": "../" + BIG}),
    (
        "run_skill_script",
        {"skill_name": "pdf", "file_path": "scripts/hello.py", "args": {"-" + BIG: 1}},
    ),
    (
        "run_skill_script",
        {"skill_name": "pdf", "file_path": "scripts/hello.py", "args": {BIG: "\0"}},
    ),
    (
        "run_skill_script",
        {"skill_name": "pdf", "file_path": "scripts/hello.py", "args": {BIG: [1]}},
    ),
]


def test_echoed_keeps_a_short_value_and_cuts_a_long_one_with_its_length() -> None:
    assert echoed("pdf") == "pdf"
    assert echoed("x" * MAX_ECHOED_CHARS) == "x" * MAX_ECHOED_CHARS
    assert echoed(BIG) == "x" * MAX_ECHOED_CHARS + "… [1,000,000 characters]"


@pytest.mark.parametrize(
    ("tool", "args"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)]
)
async def test_each_tool_answers_a_megabyte_argument_within_a_small_bound(
    tool: str, args: dict[str, Any]
) -> None:
    catalog = SkillCatalog(MemoryBackend({"pdf": PDF_SKILL}))
    await catalog.refresh()
    toolset = SkillsToolset(catalog, scripts=ScriptPolicy(), listing=Listing(search=True))
    model = ScriptedLlm(steps=[call(tool, **args), say("done")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    events = await chat.send("go")
    await chat.close()
    [(name, reply)] = responses(events)
    assert name == tool
    assert len(json.dumps(reply, ensure_ascii=False)) <= BOUND, json.dumps(reply)[:300]
    assert "characters]" in json.dumps(reply, ensure_ascii=False)


async def test_the_guard_quotes_a_refused_megabyte_command_by_its_start() -> None:
    catalog = SkillCatalog(MemoryBackend({"git-helper": {"SKILL.md": GIT_HELPER}}))
    await catalog.refresh()

    async def bash(command: str) -> dict[str, Any]:
        """Runs a shell command."""
        return {"ran": command}

    model = ScriptedLlm(
        steps=[
            call("load_skill", skill_name="git-helper"),
            call("bash", command="rm " + BIG),
            say("done"),
        ]
    )
    toolset = SkillsToolset(catalog, refresh_every=None)
    agent = LlmAgent(name="assistant", model=model, tools=[toolset, FunctionTool(bash)])
    chat = Conversation(agent, plugins=[SkillToolGuard(catalog, aliases={"bash": "Bash"})])
    events = await chat.send("Tidy up.")
    await chat.close()
    refused = dict(responses(events))["bash"]
    assert refused["error_code"] == "TOOL_NOT_PERMITTED"
    assert len(json.dumps(refused, ensure_ascii=False)) <= BOUND
    assert "… [1,000,003 characters]'" in refused["error"]
