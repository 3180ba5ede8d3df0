"""One way to find a folder's SKILL.md: by file names (any backend), or on a local disk."""

from __future__ import annotations

from pathlib import Path

from backends._local import find_skill_md, holds_skill, open_skill_folder
from backends._paths import skill_md_name
from tests.support.processes import run_python


def test_the_upper_case_name_wins_and_other_files_are_no_skill_md() -> None:
    assert skill_md_name({"skill.md", "SKILL.md", "README.md"}) == "SKILL.md"
    assert skill_md_name(["notes.md", "skill.md"]) == "skill.md"
    assert skill_md_name(["Skill.md", "README.md"]) is None


def test_a_local_folder_holds_a_skill_md_only_as_a_file(tmp_path: Path) -> None:
    (tmp_path / "dir" / "SKILL.md").mkdir(parents=True)
    (tmp_path / "lower").mkdir()
    (tmp_path / "lower" / "skill.md").write_text("---\nname: lower\n---\n")
    assert not holds_skill(find_skill_md(str(tmp_path / "dir")))
    assert holds_skill(find_skill_md(str(tmp_path / "lower")))
    assert open_skill_folder(tmp_path / "dir") is None
    assert open_skill_folder(tmp_path / "lower") is not None


LISTED_FOLDERS = """
import asyncio, os, sys

root = os.getcwd()
listed = []
sys.addaudithook(
    lambda event, args: listed.append(os.fspath(args[0]))
    if event in ("os.listdir", "os.scandir") and str(args[0]).startswith(root)
    else None
)
from backends._local import open_skill_folder

skill = open_skill_folder(sys.argv[1])
print([ref.name for ref in asyncio.run(skill.list())], listed)
"""


def test_one_skill_lists_no_folder(tmp_path: Path) -> None:
    (tmp_path / "downloads").mkdir()  # the folder holding the skill holds other things
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "SKILL.md").write_text("---\nname: pdf\ndescription: PDFs.\n---\n")
    done = run_python("-c", LISTED_FOLDERS, str(tmp_path / "pdf"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "['pdf'] []\n"
