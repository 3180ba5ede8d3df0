"""A catalog restored from the persistent cache holds no bodies; real runners still use them.

A new catalog on a warm cache stands for a new process: its skills hold no SKILL.md bytes.
The model finds a skill by a word deep in its body, AutoSkillsPlugin injects that body and the
coordinator frames it, each reading it through the catalog.
"""

from __future__ import annotations

from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.models import LlmRequest
from google.genai import types

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._catalog.cache import CatalogCache
from skills_core.adk import AutoSkillsPlugin, Listing, SkillsToolset
from skills_core.adk._modes import SkillContextProvider, agent_tool_registry
from skills_core.context._selection import SelectionPolicy
from skills_core.context._turns import ContextCoordinator, CoordinatorConfig
from tests.adk.scripted import (
    Conversation,
    ScriptedLlm,
    call,
    one_turn,
    responses,
    say,
    system_text,
)

DEEP = "Follow the usual steps. " * 200 + "Rotate with quaternions."
SKILLS = {
    "spatial-maths": skill_md("spatial-maths", "Maths.", DEEP),
    "pdf-forms": skill_md("pdf-forms", "Fill in PDF forms.", "Use pdftk."),
    "release-notes": skill_md("release-notes", "Draft release notes.", "Group by type."),
}
LOOSE = SelectionPolicy(min_score=0.01)  # body-only words of a long body score low (0.02)


async def cached_catalog(tmp_path: Path) -> SkillCatalog:
    """A catalog restored from a warm cache: it read no SKILL.md and holds no body."""
    root = tmp_path / "skills"
    for name, text in SKILLS.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_bytes(text)
    cache = CatalogCache(tmp_path / "cache")
    await SkillCatalog(LocalBackend(root), cache=cache).refresh()
    catalog = SkillCatalog(LocalBackend(root), cache=cache)
    assert (await catalog.refresh()).fetched == 0
    assert not catalog.snapshot.loaded["spatial-maths"].raw
    return catalog


async def test_search_skills_finds_a_skill_by_a_word_deep_in_its_body(tmp_path: Path) -> None:
    catalog = await cached_catalog(tmp_path)
    toolset = SkillsToolset(catalog, listing=Listing(search=True), refresh_every=None)
    model = ScriptedLlm(steps=[call("search_skills", query="quaternion rotation"), say("ok")])
    events = await one_turn(model, toolset, "How do I rotate with quaternions?")
    [(_, found)] = responses(events)
    assert [skill["name"] for skill in found["skills"]] == ["spatial-maths"]


async def test_auto_skills_injects_the_body_it_read(tmp_path: Path) -> None:
    catalog = await cached_catalog(tmp_path)
    model = ScriptedLlm(steps=[say("ok")])
    chat = Conversation(LlmAgent(name="assistant", model=model))
    chat.runner.plugin_manager.register_plugin(
        AutoSkillsPlugin(catalog, policy=LOOSE, refresh_every=None)
    )
    await chat.send("rotate quaternions")
    await chat.close()
    [text] = [p.text or "" for c in model.requests[0].contents for p in c.parts or []]
    assert text.startswith("[skill:spatial-maths]\nFollow the usual steps.")
    assert text.endswith("\n[/skill]\n\nrotate quaternions")


async def test_the_coordinator_frames_the_body_it_read(tmp_path: Path) -> None:
    catalog = await cached_catalog(tmp_path)
    provider = SkillContextProvider(
        ContextCoordinator(catalog, await agent_tool_registry([]), CoordinatorConfig(LOOSE)),
        refresh_every=None,
    )

    def step(request: LlmRequest) -> types.Part:
        assert "Rotate with quaternions." in system_text(request)
        return say("ok")

    model = ScriptedLlm(steps=[step])
    agent = LlmAgent(name="a", model=model, instruction=provider.instruction)
    chat = Conversation(agent)
    await chat.send("rotate quaternions")
    await chat.close()
    assert not model.steps
