"""Real scripts through every runner: the bundled examples and scripts as collections ship them."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from skills_core import _codes as codes
from tests.scripts.collections_skills import COLLECTION
from tests.scripts.support import ALL_RUNNERS, make_runner, run_script, write_skill

EXAMPLES = Path(__file__).resolve().parents[2] / "skills_core" / "examples"

pytestmark = pytest.mark.parametrize("runner_name", ALL_RUNNERS)


async def test_extensionless_bash_script_runs_by_its_shebang(
    skills_root: Path, runner_name: str
) -> None:
    write_skill(skills_root, "collection", COLLECTION)
    runner = make_runner(runner_name)
    result = await run_script(
        skills_root, runner, "collection", "scripts/task-brief", ["alpha", "beta"]
    )
    assert result["exit_code"] == 0, result
    assert result["stdout"] == "brief: 2 words, first alpha\n"


async def test_package_style_python_imports_from_the_skill_root(
    skills_root: Path, runner_name: str
) -> None:
    write_skill(skills_root, "collection", COLLECTION)
    runner = make_runner(runner_name)
    result = await run_script(
        skills_root, runner, "collection", "scripts/package_skill.py", ["collection"]
    )
    assert result["exit_code"] == 0, result
    assert result["stdout"] == "collection: valid\n"


async def test_refusals_name_what_to_allow(skills_root: Path, runner_name: str) -> None:
    write_skill(skills_root, "collection", COLLECTION)
    runner = make_runner(runner_name)
    node = await run_script(skills_root, runner, "collection", "scripts/node-tool", [])
    assert node["error_code"] == codes.UNSUPPORTED_SCRIPT
    allow_node = "ScriptPolicy(shebangs={**ScriptPolicy.DEFAULT_SHEBANGS, 'node': ('node',)})"
    assert allow_node in node["error"]
    plain = await run_script(skills_root, runner, "collection", "scripts/plain", [])
    assert plain["error_code"] == codes.UNSUPPORTED_SCRIPT
    assert "ScriptPolicy(interpreters={**ScriptPolicy.DEFAULT_INTERPRETERS" in plain["error"]


async def test_the_csv_profiler_example(tmp_path: Path, runner_name: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with (data / "people.csv").open("w", newline="") as handle:
        csv.writer(handle).writerows([["name", "age"], ["Ada", "36"], ["Alan", ""]])
    result = await run_script(
        EXAMPLES,
        make_runner(runner_name),
        "csv-insights",
        "scripts/profile_csv.py",
        [str(data / "people.csv")],
        readable=(str(data),),  # the sandbox shows no other host folder
    )
    assert result["exit_code"] == 0, result
    profile = json.loads(result["stdout"])
    assert profile["rows"] == 2
    assert {name: column["type"] for name, column in profile["columns"].items()} == {
        "name": "text",
        "age": "integer",
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with two Conventional Commits."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for command in (
        ["init", "-q"],
        ["commit", "-q", "--allow-empty", "-m", "feat(api): add search"],
        ["commit", "-q", "--allow-empty", "-m", "fix: handle empty input"],
    ):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *command],
            cwd=repo,
            check=True,
        )
    return repo


async def test_the_release_notes_example(repo: Path, runner_name: str) -> None:
    result = await run_script(
        EXAMPLES,
        make_runner(runner_name),
        "release-notes",
        "scripts/collect_commits.py",
        ["--repo", str(repo)],
        readable=(str(repo),),
    )
    assert result["exit_code"] == 0, result
    notes = json.loads(result["stdout"])
    assert "search" in json.dumps(notes)
    assert "handle empty input" in json.dumps(notes)
