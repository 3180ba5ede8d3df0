"""A first load reads a local folder in one pass, and judges every skill as a listing would."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from backends import LocalBackend
from backends._errors import StorageError
from backends._limits import Limits
from backends.capabilities import list_documents
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.cli._source import open_source
from tests.core.test_catalog import BROKEN, GOOD, WARNED
from tests.support.backends import CountingBackend, CountingLister

LIMITS = Limits(max_skill_md_bytes=2000)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Good, broken, warned, oversize and escaping skills, plus folders that are not skills."""
    root = tmp_path / "skills"
    for skills in (GOOD, BROKEN, WARNED):
        for name, files in skills.items():
            (root / name).mkdir(parents=True)
            data = files["SKILL.md"]
            (root / name / "SKILL.md").write_bytes(data.encode() if isinstance(data, str) else data)
    (root / "big").mkdir()
    (root / "big" / "SKILL.md").write_bytes(skill_md("big", body="x" * 3000))
    (root / "lower").mkdir()
    (root / "lower" / "skill.md").write_bytes(skill_md("lower"))
    (tmp_path / "outside.md").write_bytes(skill_md("evil"))
    (root / "evil").mkdir()
    (root / "evil" / "SKILL.md").symlink_to(tmp_path / "outside.md")
    (root / "not-a-skill").mkdir()
    (root / "README.md").write_bytes(b"a plain file in the root")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "SKILL.md").write_bytes(skill_md("hidden"))
    return root


async def test_a_first_load_reads_in_one_pass_and_later_refreshes_list(root: Path) -> None:
    backend = CountingLister(LocalBackend(root))
    catalog = SkillCatalog(backend, limits=LIMITS)
    first = await catalog.refresh()
    assert (backend.document_listings, backend.listings, backend.fetched) == (1, 0, [])
    assert first.fetched == len(GOOD) + len(BROKEN) + len(WARNED) + 1  # lower/skill.md too
    again = await catalog.refresh()
    assert (backend.document_listings, backend.listings, backend.fetched) == (1, 1, [])
    assert again.fetched == 0
    assert again.unchanged == first.added


async def test_one_pass_and_listing_give_the_same_verdicts(root: Path) -> None:
    one_pass = SkillCatalog(LocalBackend(root), limits=LIMITS)
    listed = SkillCatalog(CountingBackend(LocalBackend(root)), limits=LIMITS)
    first, second = await one_pass.refresh(), await listed.refresh()
    assert first == second
    assert one_pass.snapshot.entries == listed.snapshot.entries
    refused = {problem.name: problem.code for problem in one_pass.errors}
    assert refused["big"] == codes.TOO_LARGE
    assert refused["evil"] == codes.UNSAFE_PATH
    loaded = sorted([*GOOD, *WARNED, "lower"])
    assert [meta.name for meta in one_pass.list()] == loaded


async def test_a_failed_first_pass_is_reported_like_a_failed_listing(tmp_path: Path) -> None:
    catalog = SkillCatalog(LocalBackend(tmp_path / "missing"))
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    with pytest.raises(StorageError, match="cannot list skills folder"):
        report.raise_for_failure()


async def test_an_oversize_skill_found_in_one_pass_keeps_its_fingerprint(root: Path) -> None:
    backend = CountingLister(LocalBackend(root))
    catalog = SkillCatalog(backend, limits=LIMITS)
    await catalog.refresh()
    refused = catalog.snapshot.entries["big"]
    os.utime(root / "alpha" / "SKILL.md", ns=(0, 0))
    report = await catalog.refresh()
    assert catalog.snapshot.entries["big"] is refused  # listed with the same fingerprint
    assert backend.fetched == ["alpha"]
    assert report.unchanged == tuple(meta.name for meta in catalog.list())


async def test_a_command_reads_in_one_pass_unless_one_skill_is_asked_for(root: Path) -> None:
    whole = await asyncio.to_thread(open_source, str(root))
    listed = await list_documents(whole, max_bytes=LIMITS.max_skill_md_bytes)
    assert listed is not None
    assert "alpha" in {item.name for item in listed}
    one = await asyncio.to_thread(open_source, str(root / "alpha"))
    assert await list_documents(one, max_bytes=LIMITS.max_skill_md_bytes) is None
    assert [ref.name for ref in await one.list()] == ["alpha"]
