"""One rule for when an argument is a source and when a name, said in every command's --help."""

from __future__ import annotations

from pathlib import Path

import pytest

from skills_core.cli._app import COMMANDS, SOURCE_RULE
from tests.cli.test_subprocess import skillfs

READS_NO_SOURCE = {"new", "keygen", "cache", "approvals", "completion"}


@pytest.fixture
def project(good_root: Path) -> Path:
    """A project folder holding a ``skills`` folder, as openai/skills does."""
    return good_root.parent


@pytest.mark.parametrize("command", ["show", "approve"])
def test_a_lone_name_that_is_a_folder_is_said_to_be_one(project: Path, command: str) -> None:
    extra = ["--scripts"] if command == "approve" else []
    result = skillfs(command, "skills", *extra, cwd=project)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.endswith(
        f"skill named 'skills'; 'skills' is a folder: a source comes first, as in "
        f"'skillfs {command} skills NAME'\n"
    )
    assert len(result.stderr.splitlines()) == 1


def test_two_arguments_are_source_then_name(project: Path) -> None:
    result = skillfs("show", "skills", "alpha", "--json", cwd=project)
    assert result.returncode == 0
    assert '"name": "alpha"' in result.stdout


def test_an_unknown_name_that_is_no_source_gets_no_hint(project: Path) -> None:
    result = skillfs("show", "nothing-here", cwd=project)
    assert result.returncode == 2
    assert result.stderr.endswith(": no skill named 'nothing-here'\n")


def test_every_command_that_reads_a_source_says_the_rule_in_its_help() -> None:
    rule = " ".join(SOURCE_RULE.split())
    assert "'skillfs show URL NAME'" in rule
    for command in COMMANDS:
        result = skillfs(command.name, "--help")
        assert result.returncode == 0, command.name
        said = rule in " ".join(result.stdout.split())
        assert said == (command.name not in READS_NO_SOURCE), command.name
