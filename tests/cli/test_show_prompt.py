"""`skillfs show` and `skillfs prompt`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from backends._digests import digest_of, files_digest
from skills_core import _codes as codes
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import GOOD, RunCli
from tests.cli.test_subprocess import skillfs


def test_show_prints_metadata_files_and_body(cli: RunCli) -> None:
    result = cli("show", "csv-insights")
    assert result.code == 0
    assert result.err == ""
    head, body = result.out.split("\n---\n", 1)
    assert head.startswith("name:        csv-insights\ndescription: Profile a CSV file")
    assert "license:     Apache-2.0" in head
    assert "metadata:    author=skillfs, version=1.0" in head
    assert f"location:    {EXAMPLES / 'csv-insights' / 'SKILL.md'}" in head
    assert re.search(r"\ndigest: +sha256:[0-9a-f]{64}\n", head)
    files = [line.split()[0] for line in head.split("files:\n", 1)[1].splitlines() if line]
    assert files == ["SKILL.md", "references/analysis-checklist.md", "scripts/profile_csv.py"]
    assert re.search(r"scripts/profile_csv\.py +\d+\.\d KiB", head)
    assert body.startswith("# CSV insights\n")
    assert "python scripts/profile_csv.py data.csv" in body


def test_show_json(cli: RunCli, mixed_root: Path) -> None:
    result = cli("show", mixed_root, "beta", "--json")
    assert result.code == 0
    assert json.loads(result.out) == {
        "name": "beta",
        "location": str(mixed_root / "beta" / "SKILL.md"),
        "digest": files_digest(
            {
                "SKILL.md": digest_of(GOOD["beta"].encode()),
                "references/guide.md": digest_of(b"# Guide\n"),
            }
        ),
        "frontmatter": {"name": "beta", "description": "Beta skill with <markup> & ampersands."},
        "files": [
            {"path": "SKILL.md", "size": len(GOOD["beta"])},
            {"path": "references/guide.md", "size": len("# Guide\n")},
        ],
        "body": "# beta\n\nSteps.",
        "warnings": [],
    }


def test_show_a_skill_loaded_with_warnings(cli: RunCli, mixed_root: Path) -> None:
    result = cli("show", mixed_root, "extra-field", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["frontmatter"]["colour"] == "red"
    assert [p["code"] for p in data["warnings"]] == [codes.UNKNOWN_FIELD]
    assert result.err.startswith(f"warning: {mixed_root / 'extra-field' / 'SKILL.md'}: ")


def test_show_a_refused_skill_explains_why_and_exits_1(cli: RunCli, mixed_root: Path) -> None:
    result = cli("show", mixed_root, "no-description")
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith(f"error: {mixed_root / 'no-description' / 'SKILL.md'}: ")
    assert result.err.rstrip().endswith(f"[{codes.DESCRIPTION_MISSING}]")


def test_show_an_unknown_skill_exits_2(cli: RunCli, mixed_root: Path) -> None:
    result = cli("show", mixed_root, "nope")
    assert result.code == 2
    assert result.err == f"error: {mixed_root}: no skill named 'nope'\n"
    assert cli("show").code == 2


def test_prompt_lists_every_loaded_skill_escaped(cli: RunCli, mixed_root: Path) -> None:
    result = cli("prompt", mixed_root)
    assert result.code == 0
    assert result.out.startswith("<available_skills>\n<skill>\n<name>\n")
    assert "<skill>\n<name>\nalpha\n</name>" in result.out
    assert result.out.endswith("</available_skills>\n")
    assert "Beta skill with &lt;markup&gt; &amp; ampersands." in result.out
    assert f"<location>\n{mixed_root / 'alpha' / 'SKILL.md'}\n</location>" in result.out
    assert "no-description" not in result.out
    assert f"error: {mixed_root / 'no-description' / 'SKILL.md'}: " in result.err


def test_prompt_without_locations(cli: RunCli) -> None:
    result = cli("prompt", "--no-location")
    assert result.code == 0
    assert "<location>" not in result.out
    assert result.out.count("<skill>") == 4


def test_prompt_within_a_budget(cli: RunCli) -> None:
    whole = cli("prompt", "--no-location").out
    result = cli("prompt", "--no-location", "--budget", "400")
    assert result.code == 0
    assert len(result.out) <= 401 < len(whole)  # the block, then print's newline
    assert "<skill>" not in result.out
    assert result.out.endswith(
        "\napi-docs: Write reference documentation for HTTP…\n"
        "csv-insights, git-commit-messages, release-notes\n</available_skills>\n"
    )
    assert "4 skills available, all listed to fit the context: the first 1 as" in result.out


def test_prompt_for_a_reader_without_a_search_tool_keeps_every_name(cli: RunCli) -> None:
    result = cli("prompt", "--no-location", "--budget", "250", "--no-search-tool")
    assert result.code == 0
    assert result.out == (
        "<available_skills>\n<note>\n4 skills available, listed by name only to fit the "
        "context: `load_skill` gives the description and instructions of a skill.\n</note>\n"
        "api-docs, csv-insights, git-commit-messages, release-notes\n</available_skills>\n"
    )
    with_search = cli("prompt", "--no-location", "--budget", "250").out
    assert "2 listed by name, the other 2 not" in with_search
    assert "call `search_skills`" in with_search


def test_a_budget_under_the_smallest_form_is_said_on_stderr() -> None:
    result = skillfs("prompt", "--budget", "100")
    assert result.returncode == 0
    assert result.stdout.startswith("<available_skills>\n<note>\n4 skills available; none")
    size = len(result.stdout) - 1  # print's newline
    assert result.stderr == (
        f"warning: a budget of 100 characters is under the smallest form of 4 skills, {size} "
        "characters: that form is used, over the budget\n"
    )
    as_json = json.loads(skillfs("prompt", "--budget", "100", "--json").stdout)
    assert (as_json["budget"], as_json["characters"]) == (100, size)

    fits = skillfs("prompt", "--budget", str(size))
    assert (fits.returncode, fits.stderr, fits.stdout) == (0, "", result.stdout)
