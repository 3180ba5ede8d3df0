"""The example skills shipped in the package: valid everywhere, with working scripts."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from skills_ref import validate as skills_ref_validate

from backends import LocalBackend
from skills_core import SkillCatalog

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "skills_core" / "examples"
EXAMPLE_DIRS = sorted(path for path in EXAMPLES.iterdir() if path.is_dir())


async def test_examples_load_strictly_without_a_single_problem() -> None:
    catalog = SkillCatalog(LocalBackend(EXAMPLES), strict=True)
    report = await catalog.refresh()
    assert report.errors == ()
    assert report.warnings == ()
    assert [meta.name for meta in catalog.list()] == [path.name for path in EXAMPLE_DIRS]
    assert 3 <= len(catalog) <= 5


@pytest.mark.parametrize("folder", EXAMPLE_DIRS, ids=lambda path: path.name)
def test_each_example_is_valid_for_the_reference_implementation(folder: Path) -> None:
    assert skills_ref_validate(folder) == []
    assert any((folder / "references").iterdir())


def test_examples_include_scripts_and_assets() -> None:
    scripts = [path for folder in EXAMPLE_DIRS for path in folder.glob("scripts/*.py")]
    assets = [path for folder in EXAMPLE_DIRS for path in folder.glob("assets/*")]
    assert scripts
    assert assets


def test_package_data_globs_cover_every_example_file() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["skills_core"]
    package = ROOT / "skills_core"
    shipped = {
        match
        for pattern in patterns
        for match in glob.glob(pattern, root_dir=package, recursive=True)
        if (package / match).is_file()
    }
    on_disk = {os.path.relpath(path, package) for path in EXAMPLES.rglob("*") if path.is_file()}
    assert on_disk
    assert on_disk <= shipped


def run_script(script: Path, *args: str, cwd: Path | None = None) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, str(script), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_csv_profiler_reports_types_missing_values_and_ranges(tmp_path: Path) -> None:
    data = tmp_path / "people.csv"
    data.write_text(
        "id;name;joined;score;active\n"
        "1;Ada;2024-01-05;91.5;yes\n"
        "2;Linus;2024-02-11;78;no\n"
        "3;Grace;;88.25;yes\n"
        "4;Ken;2024-03-30;n/a\n"
    )
    profile = run_script(EXAMPLES / "csv-insights/scripts/profile_csv.py", str(data))
    assert profile["delimiter"] == ";"
    assert profile["rows"] == 4
    assert profile["ragged_rows"] == 1
    columns = profile["columns"]
    assert isinstance(columns, dict)
    assert columns["id"] == {
        "type": "integer",
        "missing": 0,
        "distinct": 4,
        "top_values": {"1": 1, "2": 1, "3": 1, "4": 1},
        "min": 1,
        "max": 4,
        "mean": 2.5,
    }
    assert columns["joined"]["type"] == "date"
    assert (columns["joined"]["min"], columns["joined"]["max"]) == ("2024-01-05", "2024-03-30")
    assert columns["score"]["type"] == "number"
    assert columns["score"]["missing"] == 1
    assert columns["active"]["type"] == "boolean"
    assert columns["active"]["missing"] == 1
    assert columns["name"]["type"] == "text"


def test_commit_collector_groups_by_type_and_finds_breaking_changes(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)

    git("init", "-q")
    git("commit", "-q", "--allow-empty", "-m", "chore: start")
    git("tag", "v1.0.0")
    git("commit", "-q", "--allow-empty", "-m", "feat(cli): add watch")
    git("commit", "-q", "--allow-empty", "-m", "fix!: drop the old config", "-m", "details")
    git("commit", "-q", "--allow-empty", "-m", "fix: crash", "-m", "BREAKING CHANGE: move x")
    git("commit", "-q", "--allow-empty", "-m", "Update readme")

    result = run_script(EXAMPLES / "release-notes/scripts/collect_commits.py", cwd=tmp_path)
    assert result["range"] == {"since": "v1.0.0", "until": "HEAD"}
    assert result["total"] == 4
    groups = result["groups"]
    assert isinstance(groups, dict)
    assert {kind: [c["text"] for c in commits] for kind, commits in groups.items()} == {
        "feat": ["add watch"],
        "fix": ["crash", "drop the old config"],
        "other": ["Update readme"],
    }
    assert groups["feat"][0]["scope"] == "cli"
    breaking = result["breaking"]
    assert isinstance(breaking, list)
    assert [(c["text"], c["breaking_note"]) for c in breaking] == [
        ("crash", "move x"),
        ("drop the old config", None),
    ]
