"""Binary files reach the model as their type decides: images inline, fonts described.

anthropics' ``canvas-design`` ships fonts; read as base64 one became a 221,309-character tool
reply. Now it is a description of a few hundred characters, and its bytes come only when the
model asks for them.
"""

from __future__ import annotations

import base64
import hashlib
import json

from backends import MemoryBackend
from backends.testing import LOGO, skill_md
from skills_core import SkillCatalog
from skills_core.adk import SkillsToolset
from tests.adk.scripted import (
    ScriptedLlm,
    call,
    declarations,
    one_turn,
    responses,
    say,
)
from tests.collections.shapes import anthropics

BLOB = bytes(range(200)) * 3
CANVAS = anthropics().skill_folders()["canvas-design"]
FONT_PATH = "canvas-fonts/Lora-Regular.ttf"
FONT = CANVAS[FONT_PATH]

SKILLS = {
    "brand": {"SKILL.md": skill_md("brand"), "assets/logo.png": LOGO, "assets/data.bin": BLOB},
    "canvas-design": CANVAS,
}


async def _read(*steps: object) -> tuple[ScriptedLlm, dict[str, dict[str, object]]]:
    model = ScriptedLlm(steps=[*steps, say("done")])
    toolset = SkillsToolset(SkillCatalog(MemoryBackend(SKILLS)))
    events = await one_turn(model, toolset, "read it")
    return model, dict(responses(events))


async def test_image_follows_as_inline_data_once() -> None:
    model, results = await _read(
        call("load_skill_resource", skill_name="brand", file_path="assets/logo.png"),
        call("list_skills"),
    )
    response = results["load_skill_resource"]
    assert "content_base64" not in response
    assert (response["binary"], response["mime_type"]) == (True, "image/png")
    assert response["delivery"] == "inline"
    shown = model.requests[1].contents[-1]
    assert shown.role == "user"
    assert shown.parts is not None
    assert shown.parts[0].text == "assets/logo.png of skill brand:"
    assert shown.parts[1].inline_data is not None
    assert shown.parts[1].inline_data.data == LOGO
    assert shown.parts[1].inline_data.mime_type == "image/png"
    later = [part for content in model.requests[2].contents for part in content.parts or []]
    assert not any(part.inline_data for part in later)  # sent once, not on every request


async def test_a_font_is_described_not_sent() -> None:
    model, results = await _read(
        call("load_skill_resource", skill_name="canvas-design", file_path=FONT_PATH)
    )
    response = results["load_skill_resource"]
    assert "content_base64" not in response
    assert response["delivery"] == "described"
    assert (response["kind"], response["mime_type"]) == ("font", "font/ttf")
    assert response["size"] == len(FONT)
    assert response["sha256"] == hashlib.sha256(FONT).hexdigest()
    assert FONT_PATH in response["note"]
    assert "as_bytes=true" in response["note"]
    assert len(json.dumps(response)) < 700  # base64 alone would be 32,000 characters
    shown = [part for content in model.requests[1].contents for part in content.parts or []]
    assert not any(part.inline_data for part in shown)


async def test_an_unknown_binary_is_described_too() -> None:
    _, results = await _read(
        call("load_skill_resource", skill_name="brand", file_path="assets/data.bin")
    )
    response = results["load_skill_resource"]
    assert (response["delivery"], response["kind"]) == ("described", "binary")
    assert response["mime_type"] == "application/octet-stream"
    assert "content_base64" not in response


async def test_bytes_come_when_the_model_asks_for_them() -> None:
    model, results = await _read(
        call("load_skill_resource", skill_name="canvas-design", file_path=FONT_PATH, as_bytes=True)
    )
    response = results["load_skill_resource"]
    assert response["delivery"] == "bytes"
    assert base64.b64decode(response["content_base64"]) == FONT
    shown = [part for content in model.requests[1].contents for part in content.parts or []]
    assert not any(part.inline_data for part in shown)  # fonts are no inline data


async def test_the_model_is_told_about_as_bytes() -> None:
    model, _ = await _read()
    schema = declarations(model.requests[0])["load_skill_resource"].parameters_json_schema
    assert schema["properties"]["as_bytes"]["type"] == "boolean"
    assert schema["required"] == ["skill_name", "file_path"]
