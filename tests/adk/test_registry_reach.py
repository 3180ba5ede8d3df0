"""What docs/adk.md says of ADK's own SkillToolset: files outside references/, assets/ and
scripts/ are out of its reach, and SkillsToolset serves them (anthropics' LICENSE.txt, themes)."""

from __future__ import annotations

from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.skill_toolset import SkillToolset

from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core.adk import CatalogSkillRegistry, SkillsToolset
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.collections.shapes import anthropics

OUTSIDE = ("LICENSE.txt", "themes/ocean-depths.md")


async def _read_all(toolset: BaseToolset) -> list[dict[str, object]]:
    steps = [
        call("load_skill_resource", skill_name="theme-factory", file_path=path) for path in OUTSIDE
    ]
    chat = Conversation(
        LlmAgent(name="assistant", model=ScriptedLlm(steps=[*steps, say("ok")]), tools=[toolset])
    )
    events = await chat.send("style it")
    await chat.close()
    return [result for name, result in responses(events) if name == "load_skill_resource"]


async def test_adks_toolset_cannot_reach_files_outside_its_three_folders(tmp_path: Path) -> None:
    catalog = SkillCatalog(LocalBackend(anthropics().write(tmp_path)))
    results = await _read_all(SkillToolset(registry=CatalogSkillRegistry(catalog)))
    assert [result.get("error_code") for result in results] == ["INVALID_RESOURCE_PATH"] * 2


async def test_skills_toolset_serves_them(tmp_path: Path) -> None:
    catalog = SkillCatalog(LocalBackend(anthropics().write(tmp_path)))
    results = await _read_all(SkillsToolset(catalog))
    assert [result["content"] for result in results] == ["Apache License 2.0\n", "# Ocean depths\n"]
