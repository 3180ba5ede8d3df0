"""Skill names that look like the publication's own files publish like any other name."""

from __future__ import annotations

import json
from pathlib import Path

from backends._index.document import INDEX_PATH
from tests.cli.conftest import RunCli, skill_md
from tests.cli.test_publish import listed, published

NAMES = ("index.json", "x", "x.zip")  # the index's own name; a skill beside another's archive


def source(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name in NAMES:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(skill_md(name))
    (root / "x" / "notes.md").write_text("x has files: it publishes as an archive\n")
    return root


def test_names_like_the_layout_publish_and_publish_again(cli: RunCli, tmp_path: Path) -> None:
    root, out = source(tmp_path), tmp_path / "site"
    for _ in range(2):
        result = cli("publish", root, "-o", out)
        assert result.code == 0, result.err
        assert result.out.startswith(f"published 3 skills to {out / INDEX_PATH}: ")
    files = published(out)
    urls = [item["url"] for item in json.loads(files[INDEX_PATH])["skills"]]
    assert len(files) == 1 + len(urls)
    assert listed(cli, out) == list(NAMES)
    shown = cli("show", out, "x")
    assert shown.code == 0, shown.err
    assert "notes.md" in shown.out


def test_a_folder_where_the_index_goes_is_refused_before_anything_is_written(
    cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    left = out / INDEX_PATH / "SKILL.md"  # what publishing a skill named index.json once left
    left.parent.mkdir(parents=True)
    left.write_text(skill_md("index.json"))
    result = cli("publish", source(tmp_path), "-o", out)
    assert result.code == 2
    assert result.err.splitlines()[-1] == (
        f"error: {out / INDEX_PATH}: nothing written: a folder stands where the index goes "
        "(an earlier publish of a skill named 'index.json' left it); remove it"
    )
    assert published(out) == {f"{INDEX_PATH}/SKILL.md": left.read_bytes()}
