"""skillfs search: the ranked search the model gets (search_skills), for a person."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core.tools import SkillTools
from tests.cli.test_subprocess import skillfs

SKILLS = {
    "pdf-forms": skill_md("pdf-forms", "Fill PDF forms and merge PDF files."),
    "csv-report": skill_md("csv-report", "Summarise a CSV export into a short report."),
    "deploy": b"---\nname: deploy\ndescription: Deploy the service to production.\n"
    b"disable-model-invocation: true\n---\nSteps.\n",
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name, data in SKILLS.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_bytes(data)
    return tmp_path


def the_tool(root: Path, query: str, limit: int = 5) -> dict[str, Any]:
    async def search() -> dict[str, Any]:
        catalog = SkillCatalog(LocalBackend(root))
        await catalog.refresh()
        return await SkillTools(catalog).search_skills(query, limit)

    return asyncio.run(search())


def test_json_is_what_search_skills_gives_with_where_each_skill_is(root: Path) -> None:
    result = skillfs("search", root, "merge pdf files into a report", "--json")
    assert result.returncode == 0
    shown = json.loads(result.stdout)
    tool = the_tool(root, "merge pdf files into a report")
    assert shown == {
        "source": str(root),
        "query": tool["query"],
        "skills": [
            {**match, "location": str(root / match["name"] / "SKILL.md")}
            for match in tool["skills"]
        ],
    }
    assert [skill["name"] for skill in shown["skills"]] == ["pdf-forms", "csv-report"]


def test_a_table_of_name_score_strength_and_location(root: Path) -> None:
    result = skillfs("search", root, "fill pdf forms", "--limit", "1")
    assert result.returncode == 0
    (match,) = the_tool(root, "fill pdf forms", 1)["skills"]
    header, row = result.stdout.splitlines()
    assert header.split() == ["NAME", "SCORE", "STRENGTH", "LOCATION"]
    location = str(root / "pdf-forms" / "SKILL.md")
    assert row.split() == ["pdf-forms", f"{match['score']:.3f}", match["strength"], location]


def test_a_skill_only_a_user_may_invoke_is_never_found(root: Path) -> None:
    result = skillfs("search", root, "deploy to production", "--json")
    assert json.loads(result.stdout)["skills"] == []
    assert result.stderr.endswith(": no skill shares a word with 'deploy to production'\n")


def test_a_limit_out_of_range_is_a_usage_error(root: Path) -> None:
    result = skillfs("search", root, "pdf", "--limit", "0")
    assert result.returncode == 2
    assert result.stderr == (
        "error: argument --limit: must be a whole number from 1 to 20, not '0' "
        "(run 'skillfs search --help')\n"
    )


def test_a_lone_query_searches_the_bundled_examples() -> None:
    result = skillfs("search", "profile a csv file", "--json")
    assert json.loads(result.stdout)["skills"][0]["name"] == "csv-insights"
