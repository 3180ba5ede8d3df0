"""The three tools' refusals and edge cases: error values, never exceptions, as run_skill_script.

Each case runs through a real LlmAgent + InMemoryRunner, so the model sees what a user's would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.genai import types

from skills_core import _codes as codes
from skills_core.adk.adk_skills import ScriptPolicy, SkillsConfig, SkillsRegistry
from tests.adk.scripted import Conversation, ScriptedLlm, call, responses, say
from tests.backends.harnesses import LocalHarness
from tests.facade.skills import TREE

TOOLS_TREE = {
    **TREE,
    "pdf-processing/references/forms/w2.md": b"# W-2\n",
    "pdf-processing/references/big.md": b"x" * 2048,
    "pdf-processing/scripts/fail.py": b"import sys\nprint('bad input', file=sys.stderr)\n"
    b"sys.exit(3)\n",
    "pdf-processing/scripts/slow.py": b"import time\ntime.sleep(60)\n",
    "pdf-processing/assets/template.txt": b"Dear ...\n",
    "pdf-processing/notes.md": b"outside references/\n",
    "hello/SKILL.md": (
        b"---\nname: hello\ndescription: Greets.\nmetadata:\n  adk_inject_state: true\n---\n"
        b"Hello {user_name}!\n"
    ),
}


@pytest.fixture
async def registry(tmp_path: Path) -> AsyncIterator[SkillsRegistry]:
    await LocalHarness(tmp_path).make_backend(TOOLS_TREE)
    config = SkillsConfig(scripts=ScriptPolicy(timeout=2), max_resource_bytes=1024)
    registry = SkillsRegistry(config)
    await registry.discover([str(tmp_path)])
    yield registry
    await registry.close()


async def answers(
    registry: SkillsRegistry, *steps: types.Part, state: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """What each scripted call returned, in order."""
    model = ScriptedLlm(steps=[*steps, say("done")])
    tools: list[Any] = [
        registry.create_use_skill_tool(),
        registry.create_read_reference_tool(),
        registry.create_run_script_tool(),
    ]
    chat = Conversation(LlmAgent(name="assistant", model=model, tools=tools))
    if state is not None:
        session = await chat.runner.session_service.create_session(
            app_name="skillfs-tests", user_id="user", state=state
        )
        chat.session_id = session.id
    events = await chat.send("go")
    await chat.close()
    return [response for _, response in responses(events)]


def code_of(result: dict[str, Any]) -> str:
    return str(result.get("error_code"))


async def test_use_skill_refuses_unknown_and_missing_names(registry: SkillsRegistry) -> None:
    unknown, missing = await answers(registry, call("use_skill", name="nope"), call("use_skill"))
    assert code_of(unknown) == codes.SKILL_NOT_FOUND
    assert "'nope'" in unknown["error"]
    assert code_of(missing) == codes.INVALID_ARGUMENTS
    assert missing["error"] == "argument 'name' must be a non-empty string"


async def test_use_skill_reports_assets_and_fills_session_state(
    registry: SkillsRegistry,
) -> None:
    pdf, hello = await answers(
        registry,
        call("use_skill", name="pdf-processing"),
        call("use_skill", name="hello"),
        state={"user_name": "Ada"},
    )
    assert (pdf["has_scripts"], pdf["has_references"], pdf["has_assets"]) == (True, True, True)
    assert hello["instructions"] == "Hello Ada!"
    assert (hello["has_scripts"], hello["has_references"], hello["has_assets"]) == (
        False,
        False,
        False,
    )


@pytest.mark.parametrize(
    ("reference", "code"),
    [
        ("../SKILL.md", codes.INVALID_PATH),
        ("../../web-scraper/SKILL.md", codes.INVALID_PATH),
        ("/etc/passwd", codes.INVALID_PATH),
        ("..\\notes.md", codes.INVALID_PATH),
        ("notes.md", codes.RESOURCE_NOT_FOUND),
        ("big.md", codes.RESOURCE_TOO_LARGE),
        ("", codes.INVALID_ARGUMENTS),
    ],
)
async def test_read_reference_is_confined_and_capped(
    registry: SkillsRegistry, reference: str, code: str
) -> None:
    (result,) = await answers(
        registry, call("read_reference", skill="pdf-processing", reference=reference)
    )
    assert code_of(result) == code


async def test_read_reference_takes_names_and_paths_below_references(
    registry: SkillsRegistry, tmp_path: Path
) -> None:
    nested, prefixed = await answers(
        registry,
        call("read_reference", skill="pdf-processing", reference="forms/w2.md"),
        call("read_reference", skill="pdf-processing", reference="references/api_docs.md"),
    )
    assert nested["content"] == "# W-2\n"
    assert nested["path"] == f"{tmp_path}/pdf-processing/references/forms/w2.md"
    assert nested["filename"] == "w2.md"
    assert prefixed["file_path"] == "references/api_docs.md"


async def test_run_script_reports_failures_as_the_design_does(
    registry: SkillsRegistry,
) -> None:
    failed, timed_out, missing, nested, escape = await answers(
        registry,
        call("run_script", skill="pdf-processing", script="fail.py"),
        call("run_script", skill="pdf-processing", script="slow.py"),
        call("run_script", skill="pdf-processing", script="nope.py"),
        call("run_script", skill="pdf-processing", script="extract_text.py", args={"f": [1]}),
        call("run_script", skill="pdf-processing", script="../SKILL.md"),
    )
    assert (failed["returncode"], failed["success"]) == (3, False)
    assert failed["stderr"] == "bad input\n"
    assert "error_code" not in failed
    assert code_of(timed_out) == codes.SCRIPT_TIMEOUT
    assert (timed_out["returncode"], timed_out["success"]) == (-9, False)
    assert code_of(missing) == codes.SCRIPT_NOT_FOUND
    assert code_of(nested) == codes.INVALID_ARGUMENTS
    assert code_of(escape) == codes.INVALID_PATH


async def test_run_script_asks_first_when_the_policy_says_confirm(tmp_path: Path) -> None:
    await LocalHarness(tmp_path).make_backend(TREE)
    registry = SkillsRegistry(SkillsConfig(scripts=ScriptPolicy(confirm=True)))
    await registry.discover([str(tmp_path)])
    (result,) = await answers(
        registry,
        call("run_script", skill="pdf-processing", script="extract_text.py", args={"file": "x"}),
    )
    await registry.close()
    assert code_of(result) == codes.CONFIRMATION_REQUIRED
