"""with_registry, validate_skill_folder, create_skill_template: the design's helpers, renamed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent

from backends import LocalBackend
from skills_core import SkillCatalog, SkillLock, lock_of
from skills_core import _codes as codes
from skills_core._errors import SkillValidationError
from skills_core._trust.policy import TrustPolicy
from skills_core.adk.adk_skills import (
    ScriptPolicy,
    SkillsConfig,
    create_skill_template,
    validate_skill_folder,
    with_registry,
)
from tests.adk.scripted import Conversation, ScriptedLlm, call, declarations, responses, say
from tests.backends.harnesses import LocalHarness
from tests.facade.skills import TREE
from tests.remote.harnesses import S3Harness


@pytest.fixture
async def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    await LocalHarness(root).make_backend(TREE)
    return root


async def tool_names(agent: LlmAgent) -> list[str]:
    return [tool.name for tool in await agent.canonical_tools()]


async def test_with_registry_adds_use_skill_and_read_reference_only(skills: Path) -> None:
    model = ScriptedLlm(steps=[call("use_skill", name="web-scraper"), say("ok")])
    agent = LlmAgent(name="assistant", model=model, instruction="Help.")
    assert await with_registry(agent, [str(skills)]) is agent
    assert await tool_names(agent) == ["use_skill", "read_reference"]
    chat = Conversation(agent)
    events = await chat.send("scrape a site")
    await chat.close()
    assert dict(responses(events))["use_skill"]["skill_name"] == "web-scraper"


async def test_with_registry_runs_scripts_only_when_asked_with_a_policy(skills: Path) -> None:
    bare = LlmAgent(name="bare", model=ScriptedLlm())
    with pytest.raises(ValueError, match="script policy"):
        await with_registry(bare, [str(skills)], include_script_tool=True)
    assert bare.tools == []

    config = SkillsConfig(scripts=ScriptPolicy(timeout=10))
    agent = LlmAgent(name="runner", model=ScriptedLlm())
    await with_registry(agent, [str(skills)], config, include_script_tool=True)
    assert await tool_names(agent) == ["use_skill", "read_reference", "run_script"]


async def test_validate_skill_reports_every_problem_at_once(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    await LocalHarness(tmp_path).make_backend(
        {"broken/SKILL.md": b"---\nname: Not-Broken\ndescription: d\ncolour: blue\n---\n"}
    )
    result = await validate_skill_folder(broken)
    assert not result
    assert result.skill_path == str(broken)
    assert [problem.code for problem in result.problems] == [
        codes.NAME_INVALID,
        codes.NAME_MISMATCH,
        codes.UNKNOWN_FIELD,
        codes.EMPTY_BODY,
    ]
    assert result.errors == tuple(problem.message for problem in result.problems[:3])
    assert result.warnings == ("SKILL.md has no instructions after the frontmatter",)


async def test_validate_skill_takes_the_folder_or_its_skill_md(skills: Path) -> None:
    for path in (skills / "pdf-processing", skills / "pdf-processing" / "SKILL.md"):
        result = await validate_skill_folder(path)
        assert result.valid
        assert bool(result)
        assert (result.errors, result.warnings) == ((), ())


async def test_a_folder_without_skill_md_is_invalid(skills: Path) -> None:
    for path in (skills, skills / "missing", "memory:"):
        result = await validate_skill_folder(path)
        assert not result.valid
        assert [problem.code for problem in result.problems] == [codes.READ_FAILED]
        assert result.errors == ("no SKILL.md in this folder",)


async def test_a_template_is_what_skillfs_new_writes_and_validates(tmp_path: Path) -> None:
    folder = await create_skill_template(tmp_path / "skills", "invoice-parsing")
    assert folder == tmp_path / "skills" / "invoice-parsing"
    made = await asyncio.to_thread(lambda: sorted(p.name for p in folder.iterdir()))
    assert made == ["SKILL.md", "assets", "references", "scripts"]
    assert (await validate_skill_folder(folder)).valid

    with pytest.raises(FileExistsError):
        await create_skill_template(tmp_path / "skills", "invoice-parsing")
    with pytest.raises(SkillValidationError) as refused:
        await create_skill_template(tmp_path / "skills", "Bad--Name")
    assert {issue.code for issue in refused.value.report.errors} == {codes.NAME_INVALID}
    assert not await asyncio.to_thread((tmp_path / "skills" / "Bad--Name").exists)


async def test_closing_the_runner_deletes_the_copies_remote_scripts_ran_in(
    s3_harness: S3Harness,
) -> None:
    tree = {**TREE, "pdf-processing/scripts/where.py": b"import os\nprint(os.getcwd())\n"}
    model = ScriptedLlm(
        steps=[call("run_script", skill="pdf-processing", script="where.py"), say("ran")]
    )
    agent = LlmAgent(name="assistant", model=model)
    config = SkillsConfig(scripts=ScriptPolicy(timeout=10))
    await with_registry(
        agent, [await s3_harness.make_backend(tree)], config, include_script_tool=True
    )
    chat = Conversation(agent)
    events = await chat.send("where do scripts run?")
    copy = Path(dict(responses(events))["run_script"]["stdout"].strip())
    assert copy.name.startswith("skillfs-pdf-processing-")
    assert await asyncio.to_thread(copy.is_dir)
    await chat.close()
    assert not await asyncio.to_thread(copy.exists)


def test_no_name_shadows_a_primary_one() -> None:
    """The compatibility module's names are its own, or the primary objects themselves."""
    import skills_core
    import skills_core.adk
    from skills_core.adk import adk_skills

    for primary in (skills_core, skills_core.adk):
        for name in set(adk_skills.__all__) & set(primary.__all__):
            assert getattr(adk_skills, name) is getattr(primary, name), name
    assert not hasattr(adk_skills, "with_skills")
    assert not hasattr(adk_skills, "validate_skill")


async def test_with_registry_serves_only_what_its_lock_pins(skills: Path, tmp_path: Path) -> None:
    catalog = SkillCatalog(LocalBackend(skills))
    await catalog.refresh()
    lock = SkillLock([], source=str(skills)).pinning("web-scraper", await lock_of(catalog))
    path = tmp_path / "skills.lock"
    await asyncio.to_thread(lock.write, path)
    asks = [call("use_skill", name=name) for name in ("pdf-processing", "web-scraper")]
    model = ScriptedLlm(steps=[*asks, say("ok")])
    agent = LlmAgent(name="assistant", model=model, instruction="Help.")
    await with_registry(agent, [str(skills)], SkillsConfig(trust=TrustPolicy(lock=path)))
    chat = Conversation(agent)
    events = await chat.send("scrape a site, then a pdf")
    await chat.close()
    shown = declarations(model.requests[0])["use_skill"].description or ""
    assert "web-scraper" in shown
    assert "pdf-processing" not in shown
    answers = [response for name, response in responses(events) if name == "use_skill"]
    assert "pdf-processing" in answers[0]["error"]
    assert answers[1]["skill_name"] == "web-scraper"
