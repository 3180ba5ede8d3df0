"""`skillfs validate`: the full, strict verdict on a folder or on one skill; exit 1 on errors."""

from __future__ import annotations

import json
from pathlib import Path

from skills_core import _codes as codes
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import ADVICE, GOOD, RENAMED, STRICTLY_INVALID, RunCli, skill_md


def test_bundled_examples_are_valid(cli: RunCli) -> None:
    result = cli("validate")
    assert result.code == 0
    assert result.err == ""
    assert result.out.splitlines()[-1] == (
        "4 skills checked: 4 valid, 0 invalid (0 errors, 0 warnings)"
    )


def test_mixed_folder_reports_every_problem_and_exits_1(cli: RunCli, mixed_root: Path) -> None:
    result = cli("validate", mixed_root)
    assert result.code == 1
    rows = {_folder_of(line): line.split()[0] for line in result.out.splitlines()[1:-1]}
    assert rows == {
        **dict.fromkeys([*GOOD, *ADVICE], "ok"),
        **dict.fromkeys(STRICTLY_INVALID, "invalid"),
    }
    assert result.out.splitlines()[-1] == (
        "12 skills checked: 4 valid, 8 invalid (8 errors, 1 warning)"
    )
    errors = [line for line in result.err.splitlines() if line.startswith("error: ")]
    for name, (_, code) in STRICTLY_INVALID.items():
        location = mixed_root / name / "SKILL.md"
        assert f"error: {location}: " in result.err
        assert any(line.endswith(f"[{code}]") and str(location) in line for line in errors)
    assert f"warning: {mixed_root / 'empty-body' / 'SKILL.md'}: " in result.err


def test_json_verdict_per_skill(cli: RunCli, mixed_root: Path) -> None:
    result = cli("validate", mixed_root, "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["source"] == str(mixed_root)
    assert data["valid"] is False
    verdicts = {skill["folder"]: skill for skill in data["skills"]}
    assert set(verdicts) == {*GOOD, *ADVICE, *STRICTLY_INVALID}
    for folder, (_, served, _) in RENAMED.items():
        assert verdicts[folder]["name"] == served  # the name list, show and prompt use
    for name in GOOD:
        assert verdicts[name]["valid"] is True
        assert verdicts[name]["errors"] == verdicts[name]["warnings"] == []
    for name, (_, code) in STRICTLY_INVALID.items():
        assert verdicts[name]["valid"] is False
        assert [p["code"] for p in verdicts[name]["errors"]] == [code]
        assert verdicts[name]["location"] == str(mixed_root / name / "SKILL.md")
    assert verdicts["empty-body"]["valid"] is True
    assert [p["code"] for p in verdicts["empty-body"]["warnings"]] == [codes.EMPTY_BODY]


def test_every_problem_of_one_skill_at_once(cli: RunCli, tmp_path: Path) -> None:
    folder = tmp_path / "several"
    folder.mkdir()
    description = "x" * 1100
    (folder / "SKILL.md").write_text(
        f"---\nname: Several\ndescription: {description}\ncompatibility: yes\ncolour: red\n---\n"
    )
    result = cli("validate", folder, "--json")
    assert result.code == 1
    [verdict] = json.loads(result.out)["skills"]
    assert sorted(p["code"] for p in verdict["errors"]) == sorted(
        [
            codes.NAME_INVALID,
            codes.NAME_MISMATCH,
            codes.TOO_LONG,
            codes.WRONG_TYPE,
            codes.UNKNOWN_FIELD,
        ]
    )
    assert [p["code"] for p in verdict["warnings"]] == [codes.EMPTY_BODY]
    assert result.err.count("error: ") == 5
    assert result.err.count("warning: ") == 1


def test_one_skill_folder_is_validated_alone(cli: RunCli, mixed_root: Path) -> None:
    good = cli("validate", mixed_root / "alpha")
    assert good.code == 0
    assert good.err == ""
    assert good.out.splitlines()[-1].startswith("1 skill checked: 1 valid")

    bad = cli("validate", mixed_root / "misnamed", "--json")
    assert bad.code == 1
    data = json.loads(bad.out)
    assert data["source"] == str(mixed_root / "misnamed")
    assert [(skill["name"], skill["folder"]) for skill in data["skills"]] == [
        ("other-name", "misnamed")
    ]
    assert bad.err.count("\n") == 1


def test_the_path_of_a_skill_md_means_its_skill(cli: RunCli, mixed_root: Path) -> None:
    result = cli("validate", mixed_root / "alpha" / "SKILL.md", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["source"] == str(mixed_root / "alpha")
    assert [skill["name"] for skill in data["skills"]] == ["alpha"]


def test_lowercase_skill_md_is_accepted(cli: RunCli, tmp_path: Path) -> None:
    folder = tmp_path / "lower"
    folder.mkdir()
    (folder / "skill.md").write_text(skill_md("lower"))
    assert cli("validate", folder).code == 0


def test_examples_by_path_and_empty_source(cli: RunCli) -> None:
    assert cli("validate", EXAMPLES).code == 0
    empty = cli("validate", "memory:", "--json")
    assert empty.code == 0
    assert json.loads(empty.out) == {"source": "memory://", "valid": True, "skills": []}
    assert empty.err == "warning: memory://: no skills found\n"


def test_unreachable_source_exits_2(cli: RunCli, tmp_path: Path) -> None:
    result = cli("validate", tmp_path / "missing")
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith(f"error: {tmp_path / 'missing'}: ")


def _folder_of(row: str) -> str:
    """The folder a table row is about: its SKILL cell, or the folder it names in brackets."""
    cells = row.split()
    return cells[3].rstrip(")") if cells[2:3] == ["(folder"] else cells[1]
