"""A local folder, served by `skillfs serve`, read by McpSkillsBackend, used by an ADK agent."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from google.adk.agents import LlmAgent

from backends._mcp.backend import McpSkillsBackend
from skills_core._catalog.catalog import SkillCatalog
from skills_core.adk import SkillsToolset
from tests.adk.scripted import Conversation, ScriptedLlm, call, calls, final_text, responses, say
from tests.mcp.conftest import SKILLS, write_tree

SERVE = [sys.executable, "-m", "skills_core.cli", "serve"]


async def test_an_agent_loads_and_reads_mcp_skills_and_a_tampered_file_is_refused(
    skills_root: Path,
) -> None:
    backend = McpSkillsBackend([*SERVE, str(skills_root), "--no-watch"], label="team-skills")
    catalog = SkillCatalog(backend)
    toolset = SkillsToolset(catalog, refresh_every=None)
    try:
        report = await catalog.refresh()
        assert report.added == ("deploy", "pdf")
        # Someone edits a file behind the server's back: what it serves no longer matches
        # the digest it published (same size, other bytes).
        await asyncio.to_thread(
            write_tree, skills_root, {"pdf/scripts/fill.py": "print('PWNED')\n"}
        )
        model = ScriptedLlm(
            steps=[
                call("list_skills"),
                call("load_skill", skill_name="pdf"),
                call("load_skill_resource", skill_name="pdf", file_path="references/forms.md"),
                call("load_skill_resource", skill_name="pdf", file_path="scripts/fill.py"),
                say("Forms have case-sensitive fields; the script failed verification."),
            ]
        )
        agent = LlmAgent(name="assistant", model=model, instruction="Help.", tools=[toolset])
        chat = Conversation(agent)
        events = await chat.send("Fill the PDF form.")
        await chat.close()
    finally:
        await toolset.close()
        await backend.aclose()

    assert [name for name, _ in calls(events)] == [
        "list_skills",
        "load_skill",
        "load_skill_resource",
        "load_skill_resource",
    ]
    results = responses(events)
    assert [s["name"] for s in results[0][1]["skills"]] == ["deploy", "pdf"]
    loaded = results[1][1]
    assert loaded["instructions"] == SKILLS["pdf/SKILL.md"].split("---\n", 2)[2].strip()
    assert loaded["base_location"] == "mcp[team-skills]:skill://pdf"  # the origin, for the model
    assert loaded["files"] == ["assets/logo.png", "references/forms.md", "scripts/fill.py"]
    assert results[2][1]["content"] == SKILLS["pdf/references/forms.md"]
    refused = results[3][1]
    assert refused["error_code"] == "READ_FAILED"
    assert "refused" in refused["error"]
    assert "tampered" in refused["error"]
    assert "content" not in refused
    assert final_text(events).startswith("Forms have case-sensitive fields")
