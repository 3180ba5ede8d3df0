"""One name per skill, used by every reader: list, get, to_prompt, reports and tools.

Issue #8.1: a folder named ``ﬁle`` (U+FB01) whose SKILL.md says ``name: file`` was keyed by the
folder but reported as ``file``: ``to_prompt()`` raised ``KeyError``, ``get("file")`` failed
and every later refresh raised. A skill is now served under its frontmatter name; its folder
stays the storage key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import LocalBackend, MemoryBackend
from backends._errors import SkillNotFoundError
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.context._derived import skill_body
from skills_core.tools._factory import SkillTools

LIGATURE = "\ufb01le"  # "ﬁle": NFKC turns the ligature into "fi"


def write_skill(root: Path, folder: str, text: str | bytes, **files: bytes) -> None:
    (root / folder).mkdir(parents=True)
    data = text.encode() if isinstance(text, str) else text
    (root / folder / "SKILL.md").write_bytes(data)
    for path, content in files.items():
        (root / folder / path).write_bytes(content)


@pytest.mark.parametrize(
    ("folder", "written_name"),
    [(LIGATURE, "file"), ("file", LIGATURE)],
    ids=["ligature-folder", "ligature-name"],
)
async def test_a_skill_is_served_under_one_name_everywhere(
    tmp_path: Path, folder: str, written_name: str
) -> None:
    write_skill(tmp_path, "good", skill_md("good"))
    text = f"---\nname: {written_name}\ndescription: Files.\n---\nUse files.\n"
    write_skill(tmp_path, folder, text, **{"notes.md": b"notes"})
    catalog = SkillCatalog(LocalBackend(tmp_path))

    report = await catalog.refresh()

    assert report.added == ("file", "good")
    assert [meta.name for meta in catalog.list()] == ["file", "good"]
    assert "file" in catalog
    assert "<name>\nfile\n</name>" in catalog.to_prompt()
    skill = await catalog.get("file")
    assert [entry.path for entry in skill.files] == ["SKILL.md", "notes.md"]
    assert await catalog.read_resource("file", "notes.md") == b"notes"
    loaded = await SkillTools(catalog).load_skill("file")
    assert loaded["skill_name"] == "file"
    assert loaded["files"] == ["notes.md"]
    assert skill_body(catalog, "file") == "Use files."
    again = await catalog.refresh()
    assert again.ok
    assert again.unchanged == ("file", "good")
    if folder != "file":
        with pytest.raises(SkillNotFoundError):
            await catalog.get(folder)  # one name: the folder is not a second one


async def test_two_skills_claiming_one_name_serve_the_first_by_folder(tmp_path: Path) -> None:
    write_skill(tmp_path, "file", "---\nname: file\ndescription: First.\n---\nBody.\n")
    write_skill(tmp_path, LIGATURE, "---\nname: file\ndescription: Second.\n---\nBody.\n")
    write_skill(tmp_path, "other", "---\nname: shared\ndescription: Third.\n---\nBody.\n")
    write_skill(tmp_path, "zeta", "---\nname: shared\ndescription: Fourth.\n---\nBody.\n")
    catalog = SkillCatalog(LocalBackend(tmp_path))

    report = await catalog.refresh()

    assert report.added == ("file", "shared")
    assert catalog.metadata("file").description == "First."
    assert catalog.metadata("shared").description == "Third."
    duplicates = {(p.name, p.location, p.code) for p in report.errors}
    assert duplicates == {
        (LIGATURE, str(tmp_path / LIGATURE / "SKILL.md"), codes.DUPLICATE_NAME),
        ("zeta", str(tmp_path / "zeta" / "SKILL.md"), codes.DUPLICATE_NAME),
    }
    assert all("already served by" in problem.message for problem in report.errors)
    assert catalog.to_prompt().count("<skill>") == 2


async def test_the_duplicate_is_served_once_the_winner_goes() -> None:
    backend = MemoryBackend(
        {
            "a-first": {"SKILL.md": "---\nname: shared\ndescription: A.\n---\nBody.\n"},
            "b-second": {"SKILL.md": "---\nname: shared\ndescription: B.\n---\nBody.\n"},
        }
    )
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    assert catalog.metadata("shared").description == "A."

    backend.remove("a-first")
    report = await catalog.refresh()

    assert report.changed == ("shared",)
    assert report.errors == ()
    assert catalog.metadata("shared").description == "B."
    assert catalog.folder("shared") == "b-second"
