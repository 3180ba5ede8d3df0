"""google-adk's own SkillToolset loads skills from any skillfs backend."""

from __future__ import annotations

import logging

import pytest
from google.adk.agents import LlmAgent
from google.adk.tools.skill_toolset import SkillToolset

from backends import MemoryBackend, SkillNotFoundError
from backends.testing import LOGO, BackendHarness, skill_md
from skills_core import SkillCatalog, SkillValidationError
from skills_core.adk import CatalogSkillRegistry, load_adk_skills, to_adk_skill
from skills_core.adk._native import load_adk_skill
from tests.adk.scripted import Conversation, ScriptedLlm, call, one_turn, responses, say
from tests.adk.skills import FORM_GUIDE, TREE


@pytest.fixture
async def catalog(harness: BackendHarness) -> SkillCatalog:
    return SkillCatalog(await harness.make_backend(TREE))


async def test_adk_skill_toolset_uses_the_registry(
    harness: BackendHarness, catalog: SkillCatalog
) -> None:
    registry = CatalogSkillRegistry(catalog, refresh_every=0)
    model = ScriptedLlm(
        steps=[
            call("search_skills", query="PDF forms"),
            call("load_skill", skill_name="pdf"),
            call("load_skill_resource", skill_name="pdf", file_path="references/forms.md"),
            say("signed"),
        ]
    )
    chat = Conversation(
        LlmAgent(name="assistant", model=model, tools=[SkillToolset(registry=registry)])
    )
    events = await chat.send("fill the form")
    results = dict(responses(events))
    assert [found["name"] for found in results["search_skills"]["result"]] == ["pdf"]
    assert results["load_skill"]["instructions"].startswith("# PDF")
    assert results["load_skill_resource"]["content"] == FORM_GUIDE

    await harness.write("weather/SKILL.md", skill_md("weather", "Forecast the weather."))
    model.steps += [call("load_skill", skill_name="weather"), say("sunny")]
    events = await chat.send("weather?")
    await chat.close()
    assert dict(responses(events))["load_skill"]["skill_name"] == "weather"


async def test_adk_skill_toolset_takes_converted_skills(catalog: SkillCatalog) -> None:
    await catalog.refresh()
    skills = await load_adk_skills(catalog)
    assert [skill.name for skill in skills] == ["notes", "pdf"]
    pdf = skills[1]
    assert pdf.resources.get_reference("forms.md") == FORM_GUIDE
    assert pdf.resources.list_scripts() == ["fill.py"]
    model = ScriptedLlm(steps=[call("list_skills"), say("two skills")])
    chat = Conversation(
        LlmAgent(name="assistant", model=model, tools=[SkillToolset(skills=skills)])
    )
    events = await chat.send("what can you do?")
    await chat.close()
    listed = dict(responses(events))["list_skills"]["result"]
    assert "<name>\npdf\n</name>" in listed


async def test_user_only_skills_reach_no_adk_listing_yet_load_by_name(
    harness: BackendHarness,
) -> None:
    secret = (
        "---\nname: secret\ndescription: Rotates the signing keys.\n"
        "disable-model-invocation: true\n---\nRotate them.\n"
    )
    catalog = SkillCatalog(await harness.make_backend({**TREE, "secret/SKILL.md": secret.encode()}))
    await catalog.refresh()
    skills = await load_adk_skills(catalog)
    assert [skill.name for skill in skills] == ["notes", "pdf"]
    toolset = SkillToolset(skills=skills, registry=CatalogSkillRegistry(catalog))
    model = ScriptedLlm(
        steps=[
            call("list_skills"),
            call("search_skills", query="rotate signing keys"),
            call("load_skill", skill_name="secret"),
            say("rotated"),
        ]
    )
    results = dict(responses(await one_turn(model, toolset, "rotate the keys")))
    assert "<name>\npdf\n</name>" in results["list_skills"]["result"]
    assert "secret" not in results["list_skills"]["result"]
    assert results["search_skills"]["result"] == []
    assert results["load_skill"]["instructions"] == "Rotate them."


async def test_search_ranks_and_empty_query_lists_all(catalog: SkillCatalog) -> None:
    registry = CatalogSkillRegistry(catalog)
    assert [meta.name for meta in await registry.search_skills(query="")] == ["notes", "pdf"]
    assert [meta.name for meta in await registry.search_skills(query="meeting")] == ["notes"]
    assert await registry.search_skills(query="astronomy") == []
    with pytest.raises(SkillNotFoundError):
        await registry.get_skill(name="missing")


async def test_what_adk_would_refuse_gets_the_smallest_faithful_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    description = ("Handles invoices and receipts. " * 40).strip()
    assert len(description) > 1024
    text = (
        f"---\nname: billing\ndescription: {description}\nmetadata:\n"
        "  adk_inject_state: 'true'\n  adk_additional_tools: 'lookup, refund'\n---\nBill.\n"
    )
    catalog = SkillCatalog(MemoryBackend({"billing": {"SKILL.md": text}}))
    report = await catalog.refresh()
    assert report.added == ("billing",)  # skillfs loads it, with a warning
    assert any(problem.code == "TOO_LONG" for problem in report.warnings)

    with caplog.at_level(logging.WARNING, logger="skillfs.adk"):
        skill = to_adk_skill(await catalog.get("billing"))
    assert len(skill.description) <= 1024
    assert skill.description.endswith("receipts.…")
    assert description.startswith(skill.description[:-1])
    assert skill.frontmatter.metadata == {
        "adk_inject_state": True,
        "adk_additional_tools": ["lookup", "refund"],
    }
    assert "memory://billing/SKILL.md: description shortened" in caplog.text
    assert "adk_inject_state 'true' read as a boolean" in caplog.text


async def test_a_long_description_is_cut_at_a_word_as_listings_cut_it() -> None:
    description = "x" * 512 + " " + "y" * 600  # a space halfway through ADK's 1,024
    text = f"---\nname: long\ndescription: {description}\n---\nBody.\n"
    catalog = SkillCatalog(MemoryBackend({"long": {"SKILL.md": text}}))
    await catalog.refresh()
    skill = to_adk_skill(await catalog.get("long"))
    assert skill.description == "x" * 512 + "…"  # no half word (was 510 y's of 600)


async def test_skills_adk_cannot_name_are_refused_and_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    backend = MemoryBackend(
        {"données": {"SKILL.md": skill_md("données")}, "ok": {"SKILL.md": skill_md("ok")}}
    )
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    assert "données" in catalog
    with pytest.raises(SkillValidationError) as raised:
        await load_adk_skill(catalog, "données")
    assert raised.value.location == "memory://données/SKILL.md"
    assert raised.value.report.errors[0].field == "name"
    assert [skill.name for skill in await load_adk_skills(catalog)] == ["ok"]
    assert "skipped for google-adk" in caplog.text
    found = await CatalogSkillRegistry(catalog).search_skills(query="")
    assert [meta.name for meta in found] == ["ok"]
    assert "left out of search results" in caplog.text


async def test_binary_resources_and_oversize_files(caplog: pytest.LogCaptureFixture) -> None:
    files = {
        "SKILL.md": skill_md("art"),
        "assets/logo.png": LOGO,
        "assets/huge.bin": b"x" * 2000,
        "scripts/blob.py": b"\x00\x01",
        "README.md": "not addressable by ADK",
    }
    catalog = SkillCatalog(MemoryBackend({"art": files}))
    await catalog.refresh()
    skill = await load_adk_skill(catalog, "art", max_file_bytes=1500)
    assert skill.resources.get_asset("logo.png") == LOGO
    assert skill.resources.get_asset("huge.bin") is None
    assert skill.resources.list_scripts() == []
    assert "assets/huge.bin left out" in caplog.text
    assert "scripts/blob.py left out" in caplog.text
