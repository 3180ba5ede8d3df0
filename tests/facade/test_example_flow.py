"""The design's example flow, run by a real LlmAgent + InMemoryRunner over a folder and over S3.

The model sees ``<available_skills>`` in ``use_skill``'s description, activates pdf-processing,
reads its API reference and runs its extraction script under a policy; a skill stored between
turns shows up in the next turn's description.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent

from skills_core.adk.adk_skills import ScriptPolicy, SkillsConfig, SkillsRegistry
from tests.adk.scripted import Conversation, ScriptedLlm, call, declarations, responses, say
from tests.facade.conftest import Store
from tests.facade.skills import API_DOCS, CSV_SKILL, PDF_BODY, PDF_DESCRIPTION, SCRAPER_DESCRIPTION


@pytest.fixture
async def registry(store: Store, tmp_path: Path) -> AsyncIterator[SkillsRegistry]:
    # The sandbox shows scripts no host folder but their skill's, unless the policy says so.
    policy = ScriptPolicy(timeout=30, readable=(str(tmp_path),))
    config = SkillsConfig(scripts=policy, refresh_every=0)
    registry = SkillsRegistry(config)
    assert await registry.discover([store.source]) == 2
    yield registry
    await registry.close()


def agent_for(registry: SkillsRegistry, model: ScriptedLlm) -> LlmAgent:
    return LlmAgent(
        name="research_assistant",
        model=model,
        instruction="You are a research assistant. Use available skills for specialized tasks.",
        tools=[
            registry.create_use_skill_tool(),
            registry.create_read_reference_tool(),
            registry.create_run_script_tool(),
        ],
    )


async def test_use_read_and_run_return_the_designs_results(
    store: Store, registry: SkillsRegistry, tmp_path: Path
) -> None:
    document = tmp_path / "paper.pdf.txt"
    await asyncio.to_thread(document.write_text, "Revenue rose 12% in Q3.\n")
    model = ScriptedLlm(
        steps=[
            call("use_skill", name="pdf-processing"),
            call("read_reference", skill="pdf-processing", reference="api_docs.md"),
            call(
                "run_script",
                skill="pdf-processing",
                script="extract_text.py",
                args={"file": str(document), "pages": 2, "verbose": False},
            ),
            say("Revenue rose 12% in Q3."),
        ]
    )
    chat = Conversation(agent_for(registry, model))
    events = await chat.send("Extract the text of this research paper.")
    await chat.close()

    use_skill = declarations(model.requests[0])["use_skill"]
    assert use_skill.description is not None
    assert use_skill.description.endswith(registry.to_available_skills_xml())
    assert "<name>\npdf-processing\n</name>" in use_skill.description
    assert f"<description>\n{PDF_DESCRIPTION}\n</description>" in use_skill.description
    assert "Extract content from websites &lt;efficiently&gt; &amp; ethically." in (
        use_skill.description
    )
    assert SCRAPER_DESCRIPTION not in use_skill.description  # escaped, never raw

    results = responses(events)
    assert [name for name, _ in results] == ["use_skill", "read_reference", "run_script"]
    (_, used), (_, reference), (_, run) = results
    assert used == {
        "skill_name": "pdf-processing",
        "base_directory": store.folder("pdf-processing"),
        "instructions": PDF_BODY.strip(),
        "has_scripts": True,
        "has_references": True,
        "has_assets": False,
    }
    assert reference == {
        "skill_name": "pdf-processing",
        "file_path": "references/api_docs.md",
        "size": len(API_DOCS.encode()),
        "content": API_DOCS,
        "path": store.folder("pdf-processing") + "/references/api_docs.md",
        "filename": "api_docs.md",
    }
    assert run == {
        "skill_name": "pdf-processing",
        "file_path": "scripts/extract_text.py",
        "stdout": "Revenue rose 12% in Q3.\npages: 2\n",
        "stderr": "",
        "stdout_truncated": False,
        "stderr_truncated": False,
        "returncode": 0,
        "success": True,
    }


async def test_a_skill_stored_between_turns_is_in_the_next_description(
    store: Store, registry: SkillsRegistry
) -> None:
    model = ScriptedLlm(steps=[say("Two skills.")])
    chat = Conversation(agent_for(registry, model))
    await chat.send("What can you do?")
    first = declarations(model.requests[-1])["use_skill"].description or ""
    assert "pdf-processing" in first
    assert "csv-insights" not in first

    for path, data in CSV_SKILL.items():
        await store.harness.write(path, data)
    model.steps += [call("use_skill", name="csv-insights"), say("Three skills.")]
    events = await chat.send("And now?")
    await chat.close()

    second = declarations(model.requests[-2])["use_skill"].description or ""
    assert "<name>\ncsv-insights\n</name>" in second
    assert "<description>\nSummarise CSV files.\n</description>" in second
    assert dict(responses(events))["use_skill"]["skill_name"] == "csv-insights"
    assert len(registry) == 3
