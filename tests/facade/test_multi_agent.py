"""The design's multi-agent example: two registries on two sources, one per sub-agent.

A coordinator without skills hands the task to a researcher whose registry reads a local
folder, which hands it to a developer whose registry reads an S3 bucket. Each sees and serves
only its own registry's skills.
"""

from __future__ import annotations

from pathlib import Path

from google.adk.agents import LlmAgent

from backends.testing import skill_md
from skills_core.adk.adk_skills import SkillsRegistry
from tests.adk.scripted import Conversation, ScriptedLlm, call, declarations, final_text, say
from tests.backends.harnesses import LocalHarness
from tests.facade.skills import TREE
from tests.remote.harnesses import S3Harness

DEVELOPMENT = {"code-review/SKILL.md": skill_md("code-review", "Review a diff for bugs.")}


async def test_each_sub_agent_uses_its_own_registry(tmp_path: Path, s3_harness: S3Harness) -> None:
    await LocalHarness(tmp_path / "research").make_backend(TREE)
    research_registry, code_registry = SkillsRegistry(), SkillsRegistry()
    assert await research_registry.discover([str(tmp_path / "research")]) == 2
    assert await code_registry.discover([await s3_harness.make_backend(DEVELOPMENT)]) == 1

    research_model = ScriptedLlm(
        steps=[
            call("use_skill", name="web-scraper"),
            call("use_skill", name="code-review"),
            call("transfer_to_agent", agent_name="developer"),
        ]
    )
    code_model = ScriptedLlm(steps=[call("use_skill", name="code-review"), say("Reviewed.")])
    research_agent = LlmAgent(
        name="researcher",
        model=research_model,
        tools=[research_registry.create_use_skill_tool()],
    )
    code_agent = LlmAgent(
        name="developer", model=code_model, tools=[code_registry.create_use_skill_tool()]
    )
    coordinator = LlmAgent(
        name="coordinator",
        model=ScriptedLlm(steps=[call("transfer_to_agent", agent_name="researcher")]),
        sub_agents=[research_agent, code_agent],
    )
    chat = Conversation(coordinator)
    events = await chat.send("Scrape the changelog, then review the diff.")
    await chat.close()
    await research_registry.close()
    await code_registry.close()

    used = [
        (event.author, response.get("skill_name") or response["error_code"])
        for event in events
        for part in event.get_function_responses()
        if part.name == "use_skill"
        for response in [dict(part.response or {})]
    ]
    assert used == [
        ("researcher", "web-scraper"),
        ("researcher", "SKILL_NOT_FOUND"),
        ("developer", "code-review"),
    ]
    research_sees = declarations(research_model.requests[0])["use_skill"].description or ""
    code_sees = declarations(code_model.requests[0])["use_skill"].description or ""
    assert "web-scraper" in research_sees
    assert "code-review" not in research_sees
    assert "code-review" in code_sees
    assert "web-scraper" not in code_sees
    assert final_text(events) == "Reviewed."
