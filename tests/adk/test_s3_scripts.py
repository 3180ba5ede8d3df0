"""Scripts of skills in an S3 bucket run in a local copy; the server counts what the copy costs.

A run copies the skill once per version, reading each of its files with one GET (SKILL.md comes
from the catalog, which already holds it); later runs of the same version read nothing. Each turn
of these agents also refreshes the catalog: one LIST.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator

import pytest
from google.adk.agents import LlmAgent
from google.genai import types

from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from skills_core.tools import ScriptPolicy
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.adk.skills import TREE, flat
from tests.remote.harnesses import S3Harness

SHOW = {
    "SKILL.md": "---\nname: show\ndescription: Shows its guide.\n---\nRun scripts/show.py.\n",
    "references/guide.md": "Sign at the bottom.\n",
    "scripts/show.py": (
        "import os\n"
        "print(open('references/guide.md').read().strip())\n"
        "print(os.path.basename(os.getcwd()))\n"
    ),
}


@pytest.fixture
async def toolset(s3_harness: S3Harness) -> AsyncIterator[SkillsToolset]:
    catalog = SkillCatalog(await s3_harness.make_backend({**TREE, **flat("show", SHOW)}))
    await catalog.refresh()
    toolset = SkillsToolset(catalog, refresh_every=0, scripts=ScriptPolicy(timeout=10))
    yield toolset
    await toolset.close()


def run_show() -> types.Part:
    return call("run_skill_script", skill_name="show", file_path="scripts/show.py")


async def test_a_run_copies_each_file_once_and_later_runs_read_nothing(
    s3_harness: S3Harness, toolset: SkillsToolset
) -> None:
    model = ScriptedLlm(steps=[run_show(), say("shown")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    log = s3_harness.server.log
    log.reset()
    first = await chat.send("show the guide")

    skill = f"/{s3_harness.bucket}/{s3_harness.prefix}/show/"
    gets = Counter(request.path for request in log.requests if request.kind == "GET")
    assert gets == {skill + path: 1 for path in SHOW if path != "SKILL.md"}
    assert log.kinds() == {"LIST": 1, "GET": len(SHOW) - 1}
    guide, folder = dict(responses(first))["run_skill_script"]["stdout"].splitlines()
    assert guide == "Sign at the bottom."
    assert folder.startswith("skillfs-show-")

    log.reset()
    model.steps += [run_show(), say("shown again")]
    second = await chat.send("once more")
    await chat.close()

    assert log.kinds() == {"LIST": 1}
    assert dict(responses(second))["run_skill_script"]["stdout"].splitlines() == [guide, folder]


async def test_a_same_size_edit_in_the_bucket_reaches_the_next_run(
    s3_harness: S3Harness, toolset: SkillsToolset
) -> None:
    model = ScriptedLlm(steps=[run_show(), say("shown")])
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    first = await chat.send("show the guide")
    assert dict(responses(first))["run_skill_script"]["stdout"].startswith("Sign at the bottom.")

    edited = b"Sign at the top!!!.\n"
    assert len(edited) == len(SHOW["references/guide.md"])
    await s3_harness.write("show/references/guide.md", edited)
    log = s3_harness.server.log
    log.reset()
    model.steps += [run_show(), say("shown again")]
    second = await chat.send("once more")
    await chat.close()

    stdout = dict(responses(second))["run_skill_script"]["stdout"]
    assert stdout.startswith("Sign at the top!!!.")
    assert log.kinds() == {"LIST": 1, "GET": len(SHOW) - 1}  # a fresh copy of the new version
