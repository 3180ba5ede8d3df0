"""The catalog cache from the command line: on by default, ``--no-cache``, ``skillfs cache``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.conftest import GOOD, RunCli, skill_md


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name, text in GOOD.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    return root


def cached(cli: RunCli) -> list[dict[str, object]]:
    result = cli("cache", "info", "--json")
    assert result.code == 0
    return json.loads(result.out)["catalogs"]  # type: ignore[no-any-return]


def test_commands_cache_by_default_and_show_what_changed(cli: RunCli, folder: Path) -> None:
    assert cli("list", folder).code == 0
    assert cli("validate", folder).code == 0
    rows = cached(cli)
    assert sorted((row["judged"], row["skills"]) for row in rows) == [
        ("lenient", 3),
        ("strict", 3),
    ]

    (folder / "beta" / "SKILL.md").write_text(skill_md("beta", "Edited since."))
    result = cli("list", folder)
    assert "Edited since." in result.out
    shown = cli("show", folder, "alpha")
    assert shown.code == 0
    assert "Steps." in shown.out  # the body, read on demand


def test_no_cache_neither_reads_nor_writes_it(cli: RunCli, folder: Path) -> None:
    assert cli("list", "--no-cache", folder).code == 0
    assert cli("prompt", "--no-cache", folder).code == 0
    assert cached(cli) == []
    assert not (Path(os.environ["SKILLFS_CACHE_DIR"]) / "catalogs.sqlite3").exists()


def test_cache_info_and_clear(cli: RunCli, folder: Path) -> None:
    path = Path(os.environ["SKILLFS_CACHE_DIR"]) / "catalogs.sqlite3"
    assert cli("cache", "info").out == f"{path}: empty\n"
    cli("list", folder)

    info = cli("cache", "info").out.splitlines()
    assert info[0].startswith(f"{path} (")
    assert info[1].split() == ["LAST", "SEEN", "SKILLS", "SIZE", "JUDGED", "SOURCE"]
    assert info[2].split()[2:] == ["3", *info[2].split()[3:5], "lenient", str(folder)]

    cleared = cli("cache", "clear")
    assert cleared.code == 0
    assert cleared.out.startswith("removed 1 cached catalog (")
    assert cleared.out.endswith(f") from {path}\n")
    assert cached(cli) == []
