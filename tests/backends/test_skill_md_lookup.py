"""One way to find a folder's SKILL.md: by file names (any backend), or on a local disk."""

from __future__ import annotations

from pathlib import Path

from backends.local_files import holds_skill_md
from backends.one_skill import open_skill_folder
from backends.paths import skill_md_name


def test_the_upper_case_name_wins_and_other_files_are_no_skill_md() -> None:
    assert skill_md_name({"skill.md", "SKILL.md", "README.md"}) == "SKILL.md"
    assert skill_md_name(["notes.md", "skill.md"]) == "skill.md"
    assert skill_md_name(["Skill.md", "README.md"]) is None


def test_a_local_folder_holds_a_skill_md_only_as_a_file(tmp_path: Path) -> None:
    (tmp_path / "dir" / "SKILL.md").mkdir(parents=True)
    (tmp_path / "lower").mkdir()
    (tmp_path / "lower" / "skill.md").write_text("---\nname: lower\n---\n")
    assert not holds_skill_md(tmp_path / "dir")
    assert holds_skill_md(tmp_path / "lower")
    assert open_skill_folder(tmp_path / "dir") is None
    assert open_skill_folder(tmp_path / "lower") is not None
