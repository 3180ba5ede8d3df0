"""What the design's tools cost on S3: request counts from the moto server's own log.

A turn refreshes the catalog with one LIST and reads no SKILL.md that did not change;
use_skill takes the body from the catalog and the skill's files from that turn's listing
(no request of its own); read_reference reads its one file (one GET).
"""

from __future__ import annotations

from typing import Any

from google.adk.agents import LlmAgent

from skills_core.adk.adk_skills import SkillsConfig, SkillsRegistry
from tests.adk.scripted import Conversation, ScriptedLlm, call, say
from tests.facade.skills import TREE
from tests.remote.harnesses import S3Harness


async def test_a_turn_costs_one_list_and_reads_only_what_the_model_asks(
    s3_harness: S3Harness,
) -> None:
    registry = SkillsRegistry(SkillsConfig(refresh_every=0))
    log = s3_harness.server.log
    await registry.discover([await s3_harness.make_backend(TREE)])
    model = ScriptedLlm(steps=[say("nothing to do")])
    tools: list[Any] = [registry.create_use_skill_tool(), registry.create_read_reference_tool()]
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=tools))

    log.reset()
    await chat.send("hello")
    assert log.kinds() == {"LIST": 1}

    log.reset()
    model.steps += [
        call("use_skill", name="pdf-processing"),
        call("read_reference", skill="pdf-processing", reference="api_docs.md"),
        say("read"),
    ]
    await chat.send("read the docs")
    await chat.close()
    await registry.close()
    assert log.kinds() == {"LIST": 1, "GET": 1}
