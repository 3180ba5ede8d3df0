"""LocalBackend's listing: a no-change listing reuses its records."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from backends import LocalBackend
from backends._errors import SkillNotFoundError
from backends.testing import skill_md


async def test_a_no_change_listing_hands_back_the_same_refs(tmp_path: Path) -> None:
    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_bytes(skill_md(name))
    backend = LocalBackend(tmp_path)
    first = await backend.list()
    beta = tmp_path / "beta" / "SKILL.md"
    st = beta.stat()
    os.utime(beta, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    second = await backend.list()
    assert second[0] is first[0]  # alpha: unchanged, no new record
    assert second[1] is not first[1]
    assert second[1].fingerprint != first[1].fingerprint
    (tmp_path / "alpha" / "SKILL.md").unlink()
    (tmp_path / "alpha" / "skill.md").write_bytes(skill_md("alpha"))
    third = await backend.list()
    assert third[0].location.endswith("alpha/skill.md")  # same name, another file: a new ref


async def test_a_plain_file_in_the_root_is_not_a_skill(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_bytes(b"not a skill folder")
    backend = LocalBackend(tmp_path)
    assert await backend.list() == []
    assert await backend.list_documents(max_bytes=1024) == []
    with pytest.raises(SkillNotFoundError):
        await backend.get("README.md")
