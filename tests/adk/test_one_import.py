"""An agent with skills and scripts is written with names from one import, skills_core.adk."""

from __future__ import annotations

from pathlib import Path

import backends
import skills_core
import skills_core.tools
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.adk.skills import TREE


async def test_an_agent_running_a_script_needs_only_skills_core_adk(tmp_path: Path) -> None:
    for path, data in TREE.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    from google.adk.agents import LlmAgent  # ADK's own agent

    from skills_core.adk import ScriptPolicy, SkillCatalog, SkillsToolset, open_backend

    async with open_backend(tmp_path) as backend:
        toolset = SkillsToolset(SkillCatalog(backend), scripts=ScriptPolicy(timeout=10))
        model = ScriptedLlm(
            steps=[
                call(
                    "run_skill_script", skill_name="pdf", file_path="scripts/fill.py", args=["Ada"]
                ),
                say("done"),
            ]
        )
        chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
        events = await chat.send("Fill the form for Ada.")
        await chat.close()
    assert dict(responses(events))["run_skill_script"]["stdout"] == "filled form for Ada\n"


def test_the_names_are_the_same_objects_as_in_their_own_packages() -> None:
    from skills_core import adk

    assert adk.SkillCatalog is skills_core.SkillCatalog
    assert adk.open_backend is backends.open_backend
    assert adk.ScriptPolicy is skills_core.tools.ScriptPolicy
