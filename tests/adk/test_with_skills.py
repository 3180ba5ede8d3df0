"""with_skills gives an existing agent skills from paths, URLs and backends."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent

from backends import MemoryBackend, UnsupportedSourceError
from backends._digests import digest_of
from backends.testing import skill_md
from skills_core._trust.lock import LockedSkill, SkillLock
from skills_core._trust.policy import TrustPolicy
from skills_core.adk import SkillsToolset, with_skills
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.remote.connections import connections
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server, StaticServer
from tests.remote.trees import skills_tree
from tests.remote.zips import zip_bytes


class TrackedBackend(MemoryBackend):
    """A memory backend that counts how often it is closed."""

    closed = 0

    async def aclose(self) -> None:
        self.closed += 1
        await super().aclose()


async def test_sources_merge_in_precedence_order(tmp_path: Path) -> None:
    def write() -> None:
        for name, description in (("pdf", "Project pdf."), ("local", "Only local.")):
            (tmp_path / name).mkdir()
            (tmp_path / name / "SKILL.md").write_bytes(skill_md(name, description))

    await asyncio.to_thread(write)
    memory = MemoryBackend(
        {"pdf": {"SKILL.md": skill_md("pdf", "Org pdf.")}, "org": {"SKILL.md": skill_md("org")}}
    )
    model = ScriptedLlm(steps=[call("list_skills"), say("ok")])
    agent = LlmAgent(name="assistant", model=model, instruction="Help.")
    assert with_skills(agent, tmp_path, memory, refresh_every=None) is agent
    toolset = agent.tools[-1]
    assert isinstance(toolset, SkillsToolset)
    await toolset.catalog.refresh()

    chat = Conversation(agent)
    events = await chat.send("what can you do?")
    await chat.close()
    listed = {s["name"]: s["description"] for s in dict(responses(events))["list_skills"]["skills"]}
    assert listed == {
        "local": "Only local.",
        "org": "A canonical test skill.",
        "pdf": "Project pdf.",
    }


async def test_first_turn_loads_the_catalog(tmp_path: Path) -> None:
    await asyncio.to_thread((tmp_path / "pdf").mkdir)
    await asyncio.to_thread((tmp_path / "pdf" / "SKILL.md").write_bytes, skill_md("pdf"))
    model = ScriptedLlm(steps=[call("load_skill", skill_name="pdf"), say("ok")])
    agent = with_skills(LlmAgent(name="assistant", model=model), str(tmp_path))
    chat = Conversation(agent)
    events = await chat.send("go")
    await chat.close()
    assert dict(responses(events))["load_skill"]["skill_name"] == "pdf"


@pytest.mark.usefixtures("no_aws_credentials")
async def test_a_source_that_cannot_be_listed_never_empties_the_agent(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    """The README's line, on a machine without AWS credentials, and a mistyped path."""
    await asyncio.to_thread((tmp_path / "skills" / "pdf").mkdir, parents=True)
    await asyncio.to_thread((tmp_path / "skills" / "pdf" / "SKILL.md").write_bytes, skill_md("pdf"))
    org = S3Harness.filled(s3_server, s3_client, bucket, {"org/SKILL.md": skill_md("org")})
    uncredentialed = org.backend(key=None, secret=None, session=None)
    mistyped = str(tmp_path / "skils")
    model = ScriptedLlm(steps=[call("list_skills"), say("ok")])
    agent = LlmAgent(name="assistant", model=model)
    with_skills(agent, tmp_path / "skills", uncredentialed, mistyped)

    chat = Conversation(agent)
    events = await chat.send("what can you do?")
    await chat.close()
    await uncredentialed.aclose()
    listed = dict(responses(events))["list_skills"]
    assert [skill["name"] for skill in listed["skills"]] == ["pdf"]
    assert listed["note"] == (
        f"Some skills may be missing: skill sources are unavailable: {org.url}, {mistyped}."
    )


def test_bad_sources_are_refused() -> None:
    agent = LlmAgent(name="assistant", model=ScriptedLlm())
    with pytest.raises(ValueError, match="at least one"):
        with_skills(agent)
    with pytest.raises(UnsupportedSourceError):
        with_skills(agent, "nosuchscheme://bucket/skills")
    assert agent.tools == []


def test_core_tools_and_cli_never_import_adk() -> None:
    code = (
        "import sys, backends, skills_core, skills_core.tools, skills_core._catalog.catalog\n"
        "import skills_core.cli._app, skills_core.cli._source\n"
        "print(sorted(m for m in sys.modules if m.startswith('google.adk')))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


async def test_closing_the_runner_closes_the_backends_with_skills_opened(
    static_server: StaticServer,
) -> None:
    """A URL with_skills opened is closed with the runner; a backend passed in is not."""
    static_server.files["/bundle/skills.zip"] = zip_bytes(skills_tree(2))
    before = await connections(static_server)
    passed = TrackedBackend({"org": {"SKILL.md": skill_md("org")}})
    model = ScriptedLlm(steps=[call("list_skills"), say("ok")])
    agent = with_skills(
        LlmAgent(name="assistant", model=model),
        static_server.url + "/bundle/skills.zip",
        passed,
    )
    chat = Conversation(agent)
    events = await chat.send("what can you do?")
    assert len(dict(responses(events))["list_skills"]["skills"]) == 3
    assert await connections(static_server) > before  # kept alive for the next refresh

    await chat.close()
    assert await connections(static_server) <= before
    assert passed.closed == 0


async def test_a_lock_file_limits_what_the_agent_is_shown(tmp_path: Path) -> None:
    pinned = skill_md("pinned")
    memory = MemoryBackend(
        {"pinned": {"SKILL.md": pinned}, "other": {"SKILL.md": skill_md("other")}}
    )
    lock = SkillLock(
        [LockedSkill("pinned", "pinned", "memory", {"SKILL.md": digest_of(pinned)})],
        source="memory",
    )
    path = tmp_path / "skills.lock"
    await asyncio.to_thread(lock.write, path)
    steps = [call("list_skills"), call("load_skill", skill_name="other"), say("ok")]
    model = ScriptedLlm(steps=steps)
    agent = with_skills(
        LlmAgent(name="a", model=model, instruction="Help."), memory, trust=TrustPolicy(lock=path)
    )
    chat = Conversation(agent)
    events = await chat.send("what can you do?")
    await chat.close()
    answers = dict(responses(events))
    assert [s["name"] for s in answers["list_skills"]["skills"]] == ["pinned"]
    assert answers["load_skill"]["error_code"] == "SKILL_NOT_FOUND"
    assert "not in the lock" in answers["load_skill"]["error"]
