"""Skills cannot drive the terminal through the CLI (#8.8).

Folder names, descriptions, license, metadata and bodies carrying escape sequences (window
title, clear screen, hyperlinks), BEL, CR, bidirectional overrides and a newline that forges
an ``error:`` line are printed with those characters escaped visibly; ``--json`` stays exact.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skills_core.cli import main

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What a terminal acts on; newline and tab are the only controls output may carry."""

FORGED = "forge\nerror: forged: you were pwned [NAME_INVALID]"
TITLE = "title\x1b]0;pwned\x07"
OVERWRITE = "cr\rfake"
BIDI = "bidi\u202eevil"
HOSTILE_FOLDERS = (FORGED, TITLE, OVERWRITE, BIDI)

DESCRIPTION = "Tidy up.\x1b]0;pwned\x07\x1b[2J\rOverwritten\x9b31m"
LICENSE = "MIT\x1b[31m"
AUTHOR = "eve\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\"
BODY = "# Tidy\n\n\x1b[2Jcleared\tand\u2028split\n"


def yaml_quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (escapes every control character)."""
    return json.dumps(text)


@pytest.fixture
def hostile_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    (root / "tidy").mkdir(parents=True)
    (root / "tidy" / "SKILL.md").write_text(
        "---\nname: tidy\n"
        f"description: {yaml_quoted(DESCRIPTION)}\n"
        f"license: {yaml_quoted(LICENSE)}\n"
        f"metadata:\n  author: {yaml_quoted(AUTHOR)}\n"
        f"---\n{BODY}"
    )
    for folder in HOSTILE_FOLDERS:
        (root / folder).mkdir()
        (root / folder / "SKILL.md").write_text("---\nname: plain\ndescription: d\n---\nBody.\n")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_harmless(text: str) -> None:
    assert not RAW.search(text), RAW.findall(text)
    for line in text.splitlines():
        assert not line.startswith("error: forged"), line


@pytest.mark.parametrize(
    "command",
    [
        ("list",),
        ("validate",),
        ("prompt",),
        ("bundle", "--skip-invalid", "-o", "{out}"),
    ],
)
def test_human_output_shows_control_characters_escaped(
    capsys: pytest.CaptureFixture[str], hostile_root: Path, tmp_path: Path, command: tuple[str]
) -> None:
    argv = [part.format(out=tmp_path / "out.zip") for part in command]
    _, out, err = run(capsys, argv[0], hostile_root, *argv[1:])
    assert_harmless(out)
    assert_harmless(err)
    # Every problem line is one line, and names its folder visibly.
    assert all(line.startswith(("error: ", "warning: ")) for line in err.splitlines())
    assert "forge\\nerror: forged" in err
    assert "title\\x1b]0;pwned\\x07" in err
    assert "cr\\rfake" in err
    assert "bidi\\u202eevil" in err


def test_show_escapes_every_field_and_the_body(
    capsys: pytest.CaptureFixture[str], hostile_root: Path
) -> None:
    code, out, _ = run(capsys, "show", hostile_root, "tidy")
    assert code == 0
    assert_harmless(out)
    assert "Tidy up.\\x1b]0;pwned\\x07\\x1b[2J\\rOverwritten\\x9b31m" in out
    assert "MIT\\x1b[31m" in out
    assert "author=eve\\x1b]8;;http://evil.example\\x1b\\click" in out
    # The body keeps its lines and tabs; everything else is escaped.
    assert "\\x1b[2Jcleared\tand\\u2028split" in out


def test_list_descriptions_are_escaped_in_the_table(
    capsys: pytest.CaptureFixture[str], hostile_root: Path
) -> None:
    _, out, _ = run(capsys, "list", hostile_root)
    [row] = [line for line in out.splitlines() if line.startswith("tidy")]
    assert "Tidy up.\\x1b]0;pwned\\x07\\x1b[2J Overwritten\\x9b31m" in row


def test_json_output_is_exact_and_harmless(
    capsys: pytest.CaptureFixture[str], hostile_root: Path
) -> None:
    _, out, _ = run(capsys, "list", hostile_root, "--json")
    assert_harmless(out)
    data = json.loads(out)
    tidy = next(skill for skill in data["skills"] if skill["name"] == "tidy")
    assert tidy["description"] == DESCRIPTION
    assert tidy["frontmatter"]["license"] == LICENSE
    assert tidy["frontmatter"]["metadata"] == {"author": AUTHOR}
    problems = [*data["errors"], *data["warnings"]]  # lenient: one is served as "plain"
    locations = {Path(problem["location"]).parent.name for problem in problems}
    assert locations == set(HOSTILE_FOLDERS)

    _, shown, _ = run(capsys, "show", hostile_root, "tidy", "--json")
    assert_harmless(shown)
    assert json.loads(shown)["body"].strip() == BODY.strip()
