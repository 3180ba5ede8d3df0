"""Images a model reads reach it as inline data; other binary files stay base64."""

from __future__ import annotations

import base64

from google.adk.agents import LlmAgent

from backends import MemoryBackend
from backends.testing import LOGO, skill_md
from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say

BLOB = bytes(range(200)) * 3

SKILLS = {
    "brand": {"SKILL.md": skill_md("brand"), "assets/logo.png": LOGO, "assets/data.bin": BLOB}
}


async def test_image_follows_as_inline_data_once() -> None:
    model = ScriptedLlm(
        steps=[
            call("load_skill_resource", skill_name="brand", file_path="assets/logo.png"),
            call("list_skills"),
            say("a logo"),
        ]
    )
    toolset = SkillsToolset(SkillCatalog(MemoryBackend(SKILLS)))
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    events = await chat.send("show me the logo")
    await chat.close()

    response = dict(responses(events))["load_skill_resource"]
    assert "content_base64" not in response
    assert (response["binary"], response["mime_type"]) == (True, "image/png")
    shown = model.requests[1].contents[-1]
    assert shown.role == "user"
    assert shown.parts is not None
    assert shown.parts[0].text == "assets/logo.png of skill brand:"
    assert shown.parts[1].inline_data is not None
    assert shown.parts[1].inline_data.data == LOGO
    assert shown.parts[1].inline_data.mime_type == "image/png"
    later = [part for content in model.requests[2].contents for part in content.parts or []]
    assert not any(part.inline_data for part in later)  # sent once, not on every request


async def test_other_binary_files_stay_base64() -> None:
    model = ScriptedLlm(
        steps=[
            call("load_skill_resource", skill_name="brand", file_path="assets/data.bin"),
            say("bytes"),
        ]
    )
    toolset = SkillsToolset(SkillCatalog(MemoryBackend(SKILLS)))
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=[toolset]))
    events = await chat.send("read the data")
    await chat.close()
    response = dict(responses(events))["load_skill_resource"]
    assert base64.b64decode(response["content_base64"]) == BLOB
    assert response["mime_type"] == "application/octet-stream"
