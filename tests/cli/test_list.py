"""`skillfs list`: every good skill on stdout, every broken one on stderr with its reason."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from backends.testing import skill_md
from skills_core import _codes as codes
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import ADVICE, BROKEN, GOOD, LENIENT, RENAMED, RunCli
from tests.cli.test_subprocess import skillfs
from tests.context.test_user_only import DEPLOY
from tests.remote.servers import S3Server
from tests.remote.settings import CREDENTIAL_VARIABLES, without_aws_credentials

SERVED_AS = {served: code for _, served, code in RENAMED.values()}

EXAMPLE_NAMES = ["api-docs", "csv-insights", "git-commit-messages", "release-notes"]


def test_without_url_lists_the_bundled_examples(cli: RunCli) -> None:
    result = cli("list")
    assert result.code == 0
    assert result.err == ""
    lines = result.out.splitlines()
    assert lines[0].split() == ["NAME", "DESCRIPTION"]
    assert [line.split()[0] for line in lines[1:]] == EXAMPLE_NAMES


def test_descriptions_are_cut_to_the_terminal_width(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    lines = cli("list").out.splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert all(line.endswith("...") for line in lines[1:])
    name_width = len("git-commit-messages  ")
    assert all(line[name_width - 2 : name_width] == "  " for line in lines)


def test_mixed_folder_lists_every_loadable_skill_and_reports_every_broken_one(
    cli: RunCli, mixed_root: Path
) -> None:
    result = cli("list", mixed_root)
    assert result.code == 0
    listed = [line.split()[0] for line in result.out.splitlines()[1:]]
    assert listed == sorted([*GOOD, *LENIENT, *ADVICE, *SERVED_AS])
    assert "<markup> & ampersands" in result.out
    for name, (_, code) in BROKEN.items():
        location = mixed_root / name / "SKILL.md"
        assert f"error: {location}: " in result.err
        assert any(
            line.startswith(f"error: {location}: ") and line.endswith(f"[{code}]")
            for line in result.err.splitlines()
        ), name
    lenient = {
        **LENIENT,
        **ADVICE,
        **{folder: (text, code) for folder, (text, _, code) in RENAMED.items()},
    }
    for name, (_, code) in lenient.items():
        assert f"warning: {mixed_root / name / 'SKILL.md'}: " in result.err
        assert f"[{code}]" in result.err
    assert "not-a-skill" not in result.out + result.err
    assert ".hidden" not in result.out + result.err
    assert "Traceback" not in result.err


def test_json_output_for_scripts(cli: RunCli, mixed_root: Path) -> None:
    result = cli("list", mixed_root, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["source"] == str(mixed_root)
    served = sorted([*GOOD, *LENIENT, *ADVICE, *SERVED_AS])
    assert [skill["name"] for skill in data["skills"]] == served
    alpha = next(skill for skill in data["skills"] if skill["name"] == "alpha")
    assert alpha == {
        "name": "alpha",
        "description": "Alpha skill. Use for alpha tasks.",
        "location": str(mixed_root / "alpha" / "SKILL.md"),
        "frontmatter": {"name": "alpha", "description": "Alpha skill. Use for alpha tasks."},
    }
    assert {(p["name"], p["code"]) for p in data["errors"]} == {
        (name, code) for name, (_, code) in BROKEN.items()
    }
    assert {(p["name"], p["code"]) for p in data["warnings"]} == {
        (name, code) for name, (_, code) in {**LENIENT, **ADVICE}.items()
    } | set(SERVED_AS.items())
    assert all(p["location"].endswith("SKILL.md") for p in data["errors"])


def test_file_url_and_memory_url(cli: RunCli) -> None:
    by_url = cli("list", EXAMPLES.as_uri(), "--json")
    assert by_url.code == 0
    assert [skill["name"] for skill in json.loads(by_url.out)["skills"]] == EXAMPLE_NAMES

    empty = cli("list", "memory:")
    assert empty.code == 0
    assert empty.out == ""
    assert empty.err == "warning: memory://: no skills found\n"


def test_a_single_skill_folder_lists_that_skill(cli: RunCli) -> None:
    result = cli("list", EXAMPLES / "csv-insights", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["source"] == str(EXAMPLES / "csv-insights")
    assert [skill["name"] for skill in data["skills"]] == ["csv-insights"]


def test_a_user_only_skill_is_listed_with_a_marker_and_left_out_of_the_prompt(
    cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "deploy-prod").mkdir()
    (tmp_path / "deploy-prod" / "SKILL.md").write_bytes(DEPLOY)
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha" / "SKILL.md").write_text(GOOD["alpha"])
    lines = cli("list", tmp_path).out.splitlines()
    assert lines[1:] == [
        "alpha        Alpha skill. Use for alpha tasks.",
        "deploy-prod  [user only] Deploy the release to production.",
    ]
    prompt = cli("prompt", tmp_path).out
    assert "<name>\nalpha\n</name>" in prompt
    assert "deploy-prod" not in prompt


def test_missing_folder_is_one_line_on_stderr_and_exit_2(cli: RunCli, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = cli("list", missing)
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith(f"error: {missing}: ")
    assert result.err.count("\n") == 1


def test_unsupported_scheme_is_one_line_on_stderr_and_exit_2(cli: RunCli) -> None:
    result = cli("list", "nosuchscheme://bucket/skills")
    assert result.code == 2
    assert result.err.startswith("error: nosuchscheme://bucket/skills: ")
    assert result.err.count("\n") == 1


def test_ctrl_c_exits_130_without_a_traceback(cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    import skills_core.cli._commands.reading as list_command

    def interrupted(url: str | None) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(list_command, "open_source", interrupted)
    result = cli("list")
    assert result.code == 130
    assert result.err == ""


def test_usage_errors_exit_2(cli: RunCli) -> None:
    assert cli("list", "a", "b").code == 2
    assert cli("no-such-command").code == 2
    assert cli().code == 2
    assert cli("--help").code == 0


def test_a_source_that_cannot_be_listed_is_one_error_line_and_the_rest_are_listed(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    """The README's two sources, on a machine without AWS credentials, and a mistyped path."""
    s3_client.put_object(Bucket=bucket, Key="skills/org/SKILL.md", Body=skill_md("org"))
    s3_server.log.reset()
    env = {k: v for k, v in os.environ.items() if not k.startswith(CREDENTIAL_VARIABLES)}
    env |= without_aws_credentials(tmp_path) | {"AWS_ENDPOINT_URL": s3_server.url}
    bucket_url, mistyped = f"s3://{bucket}/skills", tmp_path / "skils"
    result = skillfs("list", EXAMPLES, bucket_url, mistyped, env=env)
    assert result.returncode == 1
    assert [line.split()[0] for line in result.stdout.splitlines()[1:]] == EXAMPLE_NAMES
    unavailable = "source unavailable (tried again on every refresh)"
    assert result.stderr.splitlines() == [
        f"error: {bucket_url}: {unavailable}: no AWS credentials found: set AWS_ACCESS_KEY_ID "
        "and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or FSSPEC_S3_ANON=true for a public bucket "
        f"[{codes.LIST_FAILED}]",
        f"error: {mistyped}: {unavailable}: cannot list skills folder: No such file or "
        f"directory [{codes.LIST_FAILED}]",
    ]
    assert s3_server.log.kinds() == {}  # without credentials, nothing was sent


def test_when_no_source_can_be_listed_nothing_is(cli: RunCli, tmp_path: Path) -> None:
    result = cli("list", tmp_path / "one", tmp_path / "two")
    assert (result.code, result.out) == (2, "")
    (line,) = result.err.splitlines()
    assert line.startswith(f"error: {tmp_path / 'one'} + {tmp_path / 'two'}: every source failed")
