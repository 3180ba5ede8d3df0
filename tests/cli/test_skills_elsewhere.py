"""A root with no skills says where its hidden or nested skills are, and exits non-zero.

openai/skills keeps every skill in ``skills/.curated``, ``skills/.experimental`` and
``skills/.system``; ``skillfs list skills/`` said "no skills found" and exited 0.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

from backends import FsspecBackend
from skills_core import SkillCatalog
from tests.cli.conftest import RunCli, skill_md
from tests.remote.settings import FAST_RETRY, s3_options

OPENAI_SHAPE = {
    "skills/.curated/gh-fix-ci/SKILL.md": skill_md("gh-fix-ci"),
    "skills/.curated/notion/SKILL.md": skill_md("notion"),
    "skills/.curated/notion/references/api.md": "# API\n",
    "skills/.experimental/imagegen/SKILL.md": skill_md("imagegen"),
    "skills/.system/skill-creator/SKILL.md": skill_md("skill-creator"),
    "README.md": "# Skills\n",
}


def write_tree(root: Path, tree: dict[str, str]) -> Path:
    for path, text in tree.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


@pytest.fixture
def openai_repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "openai-skills", OPENAI_SHAPE)


@pytest.mark.parametrize("command", ["list", "validate", "prompt"])
def test_hidden_collections_are_named_and_the_command_fails(
    cli: RunCli, openai_repo: Path, command: str
) -> None:
    root = openai_repo / "skills"
    result = cli(command, root)
    assert result.code == 2
    [line] = result.err.splitlines()
    assert line.startswith(f"error: {root}: no skills found; ")
    assert f"{root}/.curated (2 skills)" in line
    assert f"{root}/.experimental (1 skill)" in line
    assert f"{root}/.system (1 skill)" in line
    assert "<available_skills>" not in result.out


def test_pointing_at_one_of_them_lists_its_skills(cli: RunCli, openai_repo: Path) -> None:
    result = cli("list", openai_repo / "skills" / ".curated")
    assert result.code == 0
    assert [line.split()[0] for line in result.out.splitlines()[1:]] == ["gh-fix-ci", "notion"]


def test_nested_skills_are_named_from_the_repository_root(cli: RunCli, tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "repo",
        {"skills/pdf/SKILL.md": skill_md("pdf"), "skills/docx/SKILL.md": skill_md("docx")},
    )
    result = cli("list", root, "--json")
    assert result.code == 2
    assert f"{root}/skills (2 skills); point skillfs at one of them" in result.err


def test_an_empty_folder_is_only_a_warning(cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "empty" / "docs").mkdir(parents=True)
    result = cli("list", tmp_path / "empty")
    assert result.code == 0
    assert result.err == f"warning: {tmp_path / 'empty'}: no skills found\n"


def test_a_bundle_says_it_too(cli: RunCli, tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, text in OPENAI_SHAPE.items():
            archive.writestr(f"openai-skills/{path}", text)
    bundle = tmp_path / "openai-skills.zip"
    bundle.write_bytes(buffer.getvalue())
    result = cli("list", bundle)
    assert result.code == 2
    assert "/skills/.curated (2 skills)" in result.err


async def test_a_bucket_knows_from_its_one_listing(
    s3_server: Any, s3_client: Any, bucket: str
) -> None:
    for path, text in OPENAI_SHAPE.items():
        s3_client.put_object(Bucket=bucket, Key=f"repo/{path}", Body=text.encode())
    backend = FsspecBackend(f"s3://{bucket}/repo/skills", retry=FAST_RETRY, **s3_options(s3_server))
    report = await SkillCatalog(backend).refresh()
    assert report.added == ()
    s3_server.log.reset()
    assert list(await backend.skill_folders_elsewhere()) == [
        ".curated/gh-fix-ci",
        ".curated/notion",
        ".experimental/imagegen",
        ".system/skill-creator",
    ]
    assert s3_server.log.count() == 0


def test_bundle_writes_nothing_and_says_where_they_are(
    cli: RunCli, openai_repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "skills.zip"
    result = cli("bundle", openai_repo / "skills", "-o", out)
    assert result.code == 2
    assert not out.exists()
    [line] = result.err.splitlines()
    assert line.startswith(f"error: {openai_repo / 'skills'}: nothing written: no skills found; ")
    assert ".curated (2 skills)" in line
