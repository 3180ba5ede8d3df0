"""One name per skill on every command: a skill whose folder and frontmatter ``name`` differ is
listed, shown, validated and prompted under its frontmatter name; ``show`` also takes its
folder's name (with a note) or its folder's path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skills_core import _codes as codes
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import RunCli, skill_md
from tests.cli.test_subprocess import ROOT, skillfs

FOLDER, SERVED = "widget-patterns", "acme-widget-patterns"
"""A look-alike of a collection whose folders drop the publisher's prefix from the name."""


@pytest.fixture
def prefixed_root(tmp_path: Path) -> Path:
    root = tmp_path / "collection"
    for folder, name in ((FOLDER, SERVED), ("plain", "plain")):
        (root / folder).mkdir(parents=True)
        (root / folder / "SKILL.md").write_text(skill_md(name, f"Guidance for {folder} work."))
    return root


def test_show_takes_a_folder_name_and_says_which_skill_it_serves(prefixed_root: Path) -> None:
    result = skillfs("show", prefixed_root, FOLDER)
    assert result.returncode == 0, result.stderr
    location = prefixed_root / FOLDER / "SKILL.md"
    notes = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert notes == [f"note: {location}: folder '{FOLDER}' serves skill '{SERVED}'"]
    assert result.stdout.startswith(f"name:        {SERVED}\n")


def test_every_command_uses_the_served_name(cli: RunCli, prefixed_root: Path) -> None:
    listed = json.loads(cli("list", prefixed_root, "--json").out)
    assert [skill["name"] for skill in listed["skills"]] == [SERVED, "plain"]
    shown = cli("show", prefixed_root, SERVED, "--json")
    assert (shown.code, json.loads(shown.out)["name"]) == (0, SERVED)
    assert "note: " not in shown.err  # the served name needs no resolving
    prompt = cli("prompt", prefixed_root).out
    assert re.findall(r"<name>\n(.+)\n</name>", prompt) == [SERVED, "plain"]

    validated = cli("validate", prefixed_root)
    assert validated.code == 1  # a name unlike its folder is a spec violation
    rows = validated.out.splitlines()[1:-1]
    assert rows[0].split(None, 1) == ["invalid", f"{SERVED} (folder {FOLDER})  1 error"]
    assert rows[1].split() == ["ok", "plain"]
    verdicts = json.loads(cli("validate", prefixed_root, "--json").out)["skills"]
    assert [(v["name"], v["folder"]) for v in verdicts] == [(SERVED, FOLDER), ("plain", "plain")]
    assert verdicts[0]["errors"][0]["code"] == codes.NAME_MISMATCH


def test_show_takes_one_skills_folder_alone() -> None:
    relative = (EXAMPLES / "csv-insights").relative_to(ROOT)  # as a user types it
    result = skillfs("show", relative)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("name:        csv-insights\n")
    assert result.stderr == ""


def test_a_skill_folder_with_another_name_is_shown_with_a_note(
    cli: RunCli, prefixed_root: Path
) -> None:
    result = cli("show", prefixed_root / FOLDER)
    assert result.code == 0
    assert result.out.startswith(f"name:        {SERVED}\n")
    assert result.err.count("note: ") == 1


def test_a_folder_of_several_skills_alone_asks_for_a_name(cli: RunCli, prefixed_root: Path) -> None:
    result = cli("show", f"{prefixed_root}/")
    assert result.code == 2
    assert result.out == ""
    assert result.err == (
        f"error: {prefixed_root}: holds 2 skills: name the one to show (skillfs show URL NAME)\n"
    )


def test_a_folder_whose_name_another_folder_serves_says_so(cli: RunCli, tmp_path: Path) -> None:
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "SKILL.md").write_text(skill_md("shared", "Claimed twice."))
    result = cli("show", tmp_path, "second")
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith(f"error: {tmp_path / 'second' / 'SKILL.md'}: ")
    assert f"[{codes.DUPLICATE_NAME}]" in result.err
