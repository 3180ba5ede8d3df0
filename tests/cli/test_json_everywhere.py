"""--json on every command that prints results, each document as docs/cli.md gives it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from skills_core.cli._app import COMMANDS
from tests.cli.conftest import GOOD
from tests.cli.test_subprocess import ROOT, skillfs

NO_RESULTS = {"serve": "stdout is the MCP protocol", "completion": "prints a shell script"}


@pytest.fixture
def root(good_root: Path) -> Path:
    return good_root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "SKILLFS_CACHE_DIR": str(tmp_path / "cache")}


def document(*args: str | Path, env: dict[str, str], code: int = 0) -> Any:
    result = skillfs(*args, "--json", env=env)
    assert result.returncode == code, result.stderr
    return json.loads(result.stdout)


def test_every_command_but_serve_and_completion_takes_json() -> None:
    for command in COMMANDS:
        result = skillfs(command.name, "--help")
        assert ("--json" in result.stdout) == (command.name not in NO_RESULTS), command.name
    page = (ROOT / "docs" / "cli.md").read_text()
    readme = (ROOT / "README.md").read_text()
    rule = "`--json` on every command but `serve` and `completion`"
    assert rule in page
    assert rule in readme


def test_prompt(root: Path, env: dict[str, str]) -> None:
    shown = document("prompt", root, env=env)
    assert shown.keys() == {"source", "budget", "characters", "prompt"}
    assert (shown["budget"], shown["characters"]) == (None, len(shown["prompt"]))
    assert shown["prompt"].startswith("<available_skills>")


def test_lock_write_check_and_update(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    lock = tmp_path / "skills.lock"
    wrote = document("lock", root, "-o", lock, env=env)
    assert wrote == {"path": str(lock), "source": str(root), "skills": sorted(GOOD), "files": 3}

    assert document("lock", "--check", "-o", lock, env=env)["differences"] == []
    (root / "alpha" / "notes.md").write_text("new\n")
    checked = document("lock", "--check", "-o", lock, env=env, code=1)
    assert checked == {
        "path": str(lock),
        "source": str(root),
        "differences": ["added file: alpha/notes.md"],
    }
    updated = document("lock", "--update", "alpha", "-o", lock, env=env)
    assert updated == {"path": str(lock), "source": str(root), "name": "alpha", "pinned": True}


def test_approve_and_revoke(root: Path, env: dict[str, str]) -> None:
    approved = document("approve", root, "alpha", "--scripts", env=env)
    assert approved.keys() == {"digest", "name", "source", "scripts", "tools", "approved"}
    assert (approved["name"], approved["scripts"], approved["tools"]) == ("alpha", True, False)

    listed = document("approvals", env=env)
    assert listed["approvals"] == [approved]
    revoked = document("approvals", "--revoke", "alpha", env=env)
    assert revoked == {"path": listed["path"], "revoked": [approved]}


def test_keygen_and_new(tmp_path: Path, env: dict[str, str]) -> None:
    key = tmp_path / "release"
    made = document("keygen", "-o", key, env=env)
    assert made["private_key"] == str(key)
    assert made["public_key"] == f"{key}.pub"
    assert made["key_id"].startswith("ed25519:")

    created = document("new", "fresh", "--dir", tmp_path, env=env)
    assert created == {
        "folder": str(tmp_path / "fresh"),
        "skill_md": str(tmp_path / "fresh/SKILL.md"),
    }
