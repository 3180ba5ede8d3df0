"""A skill with very many files: ``load_skill`` stays small, and the model lists folders.

Issue #8.10: a skill with 100,000 files made ``load_skill`` return a 1.9 MB file list. Issue
#13.3: UiPath's ``uipath-rpa`` (700 paths, most below ``references/activity-docs/<package>/
<version>/activities/``) made it 129,062 characters, 57,716 of them paths. ``load_skill`` now
gives a bounded summary, and ``load_skill_resource`` with a folder's path lists that folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends import LocalBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._codes import INVALID_PATH, RESOURCE_NOT_FOUND
from skills_core.adk import SkillsToolset
from skills_core.tools._content import MAX_LISTED_FILES
from skills_core.tools._factory import SkillTools
from tests.adk.scripted import ScriptedLlm, call, one_turn, responses, say

PACKAGES = [f"UiPath.Package{index:02}.Activities" for index in range(25)]
UIPATH_SHAPE = {
    "SKILL.md": skill_md("uipath-rpa", "Build UiPath RPA workflows."),
    **{f"assets/template-{index}.md": b"template" for index in range(5)},
    **{f"agents/agent-{index}.md": b"agent" for index in range(2)},
    **{f"references/guide-{index:02}.md": b"guide" for index in range(43)},
    **{
        f"references/activity-docs/{package}/25.{minor}/activities/Activity{index:02}.md": b"doc"
        for package in PACKAGES
        for minor in (10, 12)
        for index in range(13)
    },
}
"""700 files besides SKILL.md, shaped like uipath-rpa."""


@pytest.fixture
def uipath(tmp_path: Path) -> SkillTools:
    for path, data in UIPATH_SHAPE.items():
        target = tmp_path / "uipath-rpa" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return SkillTools(SkillCatalog(LocalBackend(tmp_path)))


async def test_load_skill_of_a_big_skill_is_a_bounded_summary(uipath: SkillTools) -> None:
    await uipath.catalog.refresh()

    result = await uipath.load_skill("uipath-rpa")

    assert len(json.dumps(result)) < 12_000
    assert result["file_count"] == 700
    assert result["files"] == sorted(p for p in UIPATH_SHAPE if p != "SKILL.md")[:MAX_LISTED_FILES]
    assert result["folders"] == [
        {"path": "agents", "files": 2},
        {"path": "assets", "files": 5},
        {"path": "references", "files": 693},
    ]
    assert result["folder_count"] == 3
    assert "file_path 'agents'" in result["files_note"]


async def test_the_model_lists_a_big_skill_folder_by_folder(uipath: SkillTools) -> None:
    await uipath.catalog.refresh()

    references = await uipath.load_skill_resource("uipath-rpa", "references/")
    assert references["folder"] == "references"
    assert references["folders"] == [{"path": "references/activity-docs", "files": 650}]
    assert [item["path"] for item in references["files"]][:2] == [
        "references/guide-00.md",
        "references/guide-01.md",
    ]
    assert (references["file_count"], references["folder_count"]) == (43, 1)
    docs = await uipath.load_skill_resource("uipath-rpa", "references/activity-docs")
    assert len(docs["folders"]) == 25
    assert docs["folders"][0] == {
        "path": f"references/activity-docs/{PACKAGES[0]}",
        "files": 26,
    }
    leaf = f"references/activity-docs/{PACKAGES[3]}/25.12/activities"
    activities = await uipath.load_skill_resource("uipath-rpa", leaf)
    assert activities["files"][0] == {"path": f"{leaf}/Activity00.md", "size": 3}
    assert "note" not in activities
    read = await uipath.load_skill_resource("uipath-rpa", f"{leaf}/Activity00.md")
    assert read["content"] == "doc"
    root = await uipath.load_skill_resource("uipath-rpa", ".")
    assert [item["path"] for item in root["folders"]] == ["agents", "assets", "references"]
    assert root["files"] == [{"path": "SKILL.md", "size": len(UIPATH_SHAPE["SKILL.md"])}]


async def test_a_path_that_is_neither_file_nor_folder_is_still_not_found(
    uipath: SkillTools,
) -> None:
    await uipath.catalog.refresh()
    missing = await uipath.load_skill_resource("uipath-rpa", "references/nope")
    assert missing["error_code"] == RESOURCE_NOT_FOUND
    escape = await uipath.load_skill_resource("uipath-rpa", "../other")
    assert escape["error_code"] == INVALID_PATH


async def test_a_hundred_thousand_files_stay_within_bounds() -> None:
    files: dict[str, bytes] = {"SKILL.md": skill_md("huge")}
    files.update((f"data/part-{index:06}.csv", b"x") for index in range(100_000))
    catalog = SkillCatalog(MemoryBackend({"huge": files}))
    await catalog.refresh()
    tools = SkillTools(catalog)

    loaded = await tools.load_skill("huge")
    listed = await tools.load_skill_resource("huge", "data")

    assert len(json.dumps(loaded)) < 12_000
    assert loaded["file_count"] == 100_000
    assert loaded["folders"] == [{"path": "data", "files": 100_000}]
    assert len(json.dumps(listed)) < 12_000
    assert listed["file_count"] == 100_000
    assert len(listed["files"]) == MAX_LISTED_FILES
    assert listed["note"] == f"Only the first {MAX_LISTED_FILES} of 100000 entries are listed."


async def test_an_adk_agent_drills_down_through_the_folders(uipath: SkillTools) -> None:
    leaf = f"references/activity-docs/{PACKAGES[0]}/25.10/activities"
    model = ScriptedLlm(
        steps=[
            call("load_skill", skill_name="uipath-rpa"),
            call("load_skill_resource", skill_name="uipath-rpa", file_path="references"),
            call("load_skill_resource", skill_name="uipath-rpa", file_path=f"{leaf}/Activity03.md"),
            say("done"),
        ]
    )
    toolset = SkillsToolset(uipath.catalog)
    events = await one_turn(model, toolset, "build a workflow")
    results = responses(events)
    assert results[0][1]["file_count"] == 700
    assert results[1][1]["folders"] == [{"path": "references/activity-docs", "files": 650}]
    assert results[2][1]["content"] == "doc"
