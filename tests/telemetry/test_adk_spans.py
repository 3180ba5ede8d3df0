"""google-adk's skill spans learn where a skill came from; skillfs's spans nest inside ADK's."""

from __future__ import annotations

from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.tools.skill_toolset import SkillToolset
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core.adk import CatalogSkillRegistry, SkillsToolset, load_adk_skills
from tests.adk.scripted import Conversation, ScriptedLlm, call, one_turn, say
from tests.collections.shapes import anthropics


async def test_adks_own_toolset_records_the_skills_source(
    spans: InMemorySpanExporter, tmp_path: Path
) -> None:
    root = anthropics().write(tmp_path)
    catalog = SkillCatalog(LocalBackend(root))
    registry = CatalogSkillRegistry(catalog, refresh_every=0)
    model = ScriptedLlm(steps=[call("load_skill", skill_name="docx"), say("ok")])
    chat = Conversation(
        LlmAgent(name="assistant", model=model, tools=[SkillToolset(registry=registry)])
    )
    await chat.send("write a report")
    await chat.close()

    finished = spans.get_finished_spans()
    (tool_span,) = [span for span in finished if span.name == "execute_tool load_skill docx"]
    assert tool_span.attributes is not None
    assert tool_span.attributes["gen_ai.skill.name"] == "docx"
    assert tool_span.attributes["gen_ai.skill.source.uri"] == (root / "docx").resolve().as_uri()


async def test_every_converted_skill_has_its_source(tmp_path: Path) -> None:
    root = anthropics().write(tmp_path)
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()
    skills = await load_adk_skills(catalog)
    assert {skill.name: skill._uri for skill in skills} == {
        name: (root / name).resolve().as_uri() for name in anthropics().skills
    }


async def test_skillfs_tool_spans_nest_in_adks(spans: InMemorySpanExporter, tmp_path: Path) -> None:
    root = anthropics().write(tmp_path)
    toolset = SkillsToolset(SkillCatalog(LocalBackend(root)))
    model = ScriptedLlm(
        steps=[
            call("load_skill_resource", skill_name="pdf", file_path="forms.md"),
            say("ok"),
        ]
    )
    await one_turn(model, toolset, "fill it")

    finished = {span.name: span for span in spans.get_finished_spans()}
    ours, adks = (
        finished["skillfs.load_skill_resource"],
        finished["execute_tool load_skill_resource"],
    )
    assert ours.parent is not None
    assert ours.parent.span_id == adks.context.span_id
    assert ours.attributes is not None
    assert ours.attributes["gen_ai.skill.resource.name"] == "forms.md"
    assert ours.attributes["gen_ai.skill.source.uri"] == (root / "pdf").resolve().as_uri()
    assert "skillfs.refresh" in finished  # the turn's refresh
