"""SkillsToolset(search=True): a real agent finds a skill with search_skills, then loads it."""

from __future__ import annotations

from google.adk.agents import LlmAgent

from backends import MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.adk import CatalogSkillRegistry, Listing, SkillsToolset
from tests.adk.scripted import (
    Conversation,
    ScriptedLlm,
    call,
    declarations,
    one_turn,
    responses,
    say,
    system_text,
)

SKILLS = {
    "pdf-forms": {"SKILL.md": skill_md("pdf-forms", "Fill in PDF forms.", "Use pdftk.")},
    "release-notes": {"SKILL.md": skill_md("release-notes", "Draft release notes.")},
}


async def test_the_model_searches_then_loads_what_it_found() -> None:
    toolset = SkillsToolset(
        SkillCatalog(MemoryBackend(SKILLS)), listing=Listing(search=True), refresh_every=0
    )
    model = ScriptedLlm(
        steps=[
            call("search_skills", query="fill out my pdf form", limit=3.0),
            call("load_skill", skill_name="pdf-forms"),
            say("done"),
        ]
    )
    events = await one_turn(model, toolset, "Please fill out my PDF form.")
    found = dict(responses(events))
    assert found["search_skills"] == {
        "query": "fill out my pdf form",
        "skills": [
            {
                "name": "pdf-forms",
                "description": "Fill in PDF forms.",
                "score": 0.486,
                "strength": "strong",
            }
        ],
    }
    assert found["load_skill"]["instructions"].strip() == "Use pdftk."
    first = model.requests[0]
    assert set(declarations(first)) == {
        "list_skills",
        "search_skills",
        "load_skill",
        "load_skill_resource",
    }
    assert "`search_skills`" in system_text(first)


async def test_the_model_gets_a_weak_candidate_and_is_told_how_to_read_it() -> None:
    toolset = SkillsToolset(SkillCatalog(MemoryBackend(SKILLS)), listing=Listing(search=True))
    model = ScriptedLlm(
        steps=[
            call("search_skills", query="a poem about forms"),
            call("search_skills", query="a joke about penguins"),
            say("no skill for that"),
        ]
    )
    events = await one_turn(model, toolset, "Write me a poem about forms.")
    [weak, nothing] = [result for name, result in responses(events) if name == "search_skills"]
    assert [(s["name"], s["strength"]) for s in weak["skills"]] == [("pdf-forms", "weak")]
    assert nothing["skills"] == []
    description = declarations(model.requests[0])["search_skills"].description or ""
    assert "`weak`" in description
    assert "no skill shares a word" in description


async def test_search_is_off_by_default_and_follows_the_prefix() -> None:
    catalog = SkillCatalog(MemoryBackend(SKILLS))
    model = ScriptedLlm(steps=[say("a"), say("b")])
    plain = Conversation(LlmAgent(name="a", model=model, tools=[SkillsToolset(catalog)]))
    await plain.send("hi")
    await plain.close()
    assert "search_skills" not in declarations(model.requests[0])
    assert "search_skills" not in system_text(model.requests[0])
    prefixed = SkillsToolset(catalog, listing=Listing(search=True), tool_name_prefix="kb")
    chat = Conversation(LlmAgent(name="b", model=model, tools=[prefixed]))
    await chat.send("hi")
    await chat.close()
    assert "kb_search_skills" in declarations(model.requests[1])
    assert "`kb_search_skills`" in system_text(model.requests[1])


async def test_adks_own_skill_toolset_searches_with_ranked_search() -> None:
    catalog = SkillCatalog(MemoryBackend(SKILLS))
    registry = CatalogSkillRegistry(catalog)
    found = await registry.search_skills(query="please fill out my PDF form")
    assert [meta.name for meta in found] == ["pdf-forms"]
    assert await registry.search_skills(query="tell me a joke about penguins") == []
    everything = await registry.search_skills(query=" ")
    assert [meta.name for meta in everything] == ["pdf-forms", "release-notes"]
