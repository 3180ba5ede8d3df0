"""`skillfs new`: a skeleton that validates, and refusals that leave nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skills_core import _codes as codes
from tests.cli.conftest import RunCli


def test_new_then_validate_round_trip(cli: RunCli, tmp_path: Path) -> None:
    created = cli("new", "invoice-parsing", "--dir", tmp_path)
    assert created.code == 0
    assert created.err == ""
    folder = tmp_path / "invoice-parsing"
    assert str(folder / "SKILL.md") in created.out
    assert sorted(path.name for path in folder.iterdir()) == [
        "SKILL.md",
        "assets",
        "references",
        "scripts",
    ]
    assert all(not any((folder / sub).iterdir()) for sub in ("assets", "references", "scripts"))

    validated = cli("validate", folder)
    assert validated.code == 0
    assert validated.err == ""

    shown = json.loads(cli("show", tmp_path, "invoice-parsing", "--json").out)
    assert shown["frontmatter"]["name"] == "invoice-parsing"
    assert shown["body"].startswith("# Invoice parsing\n")


def test_description_with_yaml_specials_survives(cli: RunCli, tmp_path: Path) -> None:
    description = "Use for: a --- b # not a comment, 'single' \"double\" — ünïcode"
    assert cli("new", "tricky", "--dir", tmp_path, "--description", description).code == 0
    assert cli("validate", tmp_path / "tricky").code == 0
    shown = json.loads(cli("show", tmp_path, "tricky", "--json").out)
    assert shown["frontmatter"]["description"] == description


def test_default_dir_is_the_current_folder_and_dir_is_created(
    cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli("new", "here").code == 0
    assert (tmp_path / "here" / "SKILL.md").is_file()
    assert cli("new", "deep", "--dir", "a/b").code == 0
    assert (tmp_path / "a" / "b" / "deep" / "SKILL.md").is_file()


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Upper", codes.NAME_INVALID),
        ("-leading", codes.NAME_INVALID),
        ("double--hyphen", codes.NAME_INVALID),
        ("under_score", codes.NAME_INVALID),
        ("../escape", codes.NAME_INVALID),
        ("x" * 65, codes.NAME_INVALID),
        ("", codes.NAME_INVALID),
    ],
)
def test_invalid_names_are_refused(cli: RunCli, tmp_path: Path, name: str, code: str) -> None:
    result = cli("new", "--dir", tmp_path / "skills", "--", name)
    assert result.code == 2
    assert f"[{code}]" in result.err
    assert not (tmp_path / "skills").exists()
    assert not (tmp_path / "escape").exists()


@pytest.mark.parametrize(
    ("description", "code"), [("w" * 1025, codes.TOO_LONG), ("", codes.DESCRIPTION_MISSING)]
)
def test_bad_description_is_refused(
    cli: RunCli, tmp_path: Path, description: str, code: str
) -> None:
    result = cli("new", "wordy", "--dir", tmp_path, "--description", description)
    assert result.code == 2
    assert f"[{code}]" in result.err
    assert not (tmp_path / "wordy").exists()


def test_existing_folder_is_refused_and_left_alone(cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    result = cli("new", "taken", "--dir", tmp_path)
    assert result.code == 2
    assert result.err == f"error: {tmp_path / 'taken'}: already exists\n"
    assert [path.name for path in (tmp_path / "taken").iterdir()] == ["notes.txt"]
