"""A lock's edges on one backend: a catalog without the locked bytes, hostile lock files,
writers at once and failed writes."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from backends import LocalBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import LockFileError, SkillCatalog, SkillLock, lock_of
from skills_core import _codes as codes
from skills_core._bundle.writer import write_bundle
from skills_core._errors import InvalidSkillsError
from skills_core._trust.lock import LockedSkill
from skills_core._trust.policy import TrustPolicy
from skills_core.context._search import search_index


async def test_a_catalog_keeping_metadata_only_refuses_a_changed_skill() -> None:
    backend = MemoryBackend({"pdf": {"SKILL.md": skill_md("pdf")}})
    plain = SkillCatalog(backend)
    await plain.refresh()
    catalog = SkillCatalog(backend, keep_bodies=False, trust=TrustPolicy(lock=await lock_of(plain)))
    await catalog.refresh()
    assert "pdf" in catalog
    backend.put("pdf", {"SKILL.md": skill_md("pdf", "Changed.")})
    report = await catalog.refresh()
    assert report.removed == ("pdf",)
    assert [(p.code, p.message) for p in catalog.errors] == [
        (codes.LOCK_MISMATCH, "SKILL.md differs from the lock skills.lock; refused")
    ]


async def test_an_unreadable_lock_file_serves_nothing() -> None:
    catalog = SkillCatalog(
        MemoryBackend({"pdf": {"SKILL.md": skill_md("pdf")}}), trust=TrustPolicy(lock="nowhere")
    )
    report = await catalog.refresh()
    assert report.failure is not None
    assert "cannot read the lock" in report.failure.message
    assert len(catalog) == 0


@pytest.mark.parametrize(
    "skill",
    [
        {"name": "a", "folder": "a", "location": "a", "files": {"SKILL.md": "md5:00"}},
        {"name": "a", "folder": "a", "location": "a", "files": {"../x": "sha256:" + "0" * 64}},
        {"name": 1, "folder": "a", "location": "a", "files": {}},
    ],
)
def test_a_malformed_lock_is_refused(skill: dict[str, object]) -> None:
    text = json.dumps({"format": "skillfs-lock/1", "source": "s", "skills": [skill]})
    with pytest.raises(LockFileError, match="not a skillfs lock"):
        SkillLock.parse(text)


def test_a_deeply_nested_lock_is_refused_as_a_lock_file() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    text = '{"format": "skillfs-lock/1", "source": "s", "skills": ' + deep + "}"
    with pytest.raises(LockFileError, match=r"not a skillfs lock \(RecursionError"):
        SkillLock.parse(text, location="deep.lock")


def test_a_lock_naming_a_skill_twice_is_refused() -> None:
    """A reviewer reads the first entry; the catalog must not silently hold the second."""
    entry = {"name": "pdf", "folder": "pdf", "location": "pdf/SKILL.md"}
    skills = [
        {**entry, "files": {"SKILL.md": "sha256:" + "0" * 64}},
        {**entry, "files": {"SKILL.md": "sha256:" + "1" * 64}},
    ]
    text = json.dumps({"format": "skillfs-lock/1", "source": "s", "skills": skills})
    with pytest.raises(LockFileError, match="skill 'pdf' is locked twice"):
        SkillLock.parse(text)


async def test_a_locked_skill_in_a_renamed_folder_is_served_not_reported_gone(
    tmp_path: Path,
) -> None:
    (tmp_path / "pdf").mkdir()
    (tmp_path / "pdf" / "SKILL.md").write_bytes(skill_md("pdf"))
    lock = await lock_of(await refreshed(SkillCatalog(LocalBackend(tmp_path))))
    (tmp_path / "pdf").rename(tmp_path / "pdf-v2")
    catalog = await refreshed(SkillCatalog(LocalBackend(tmp_path), trust=TrustPolicy(lock=lock)))
    assert [meta.name for meta in catalog.list()] == ["pdf"]
    assert [p.code for p in catalog.errors] == []
    (tmp_path / "pdf-v2" / "SKILL.md").unlink()
    (tmp_path / "pdf-v2").rmdir()
    await catalog.refresh()
    assert [(p.name, p.code) for p in catalog.errors] == [("pdf", codes.LOCK_MISSING)]


async def refreshed(catalog: SkillCatalog) -> SkillCatalog:
    await catalog.refresh()
    return catalog


async def test_write_bundle_packs_only_what_its_lock_pins(tmp_path: Path) -> None:
    backend = MemoryBackend({"pdf": {"SKILL.md": skill_md("pdf")}})
    lock = await lock_of(await refreshed(SkillCatalog(backend)))
    backend.put("extra", {"SKILL.md": skill_md("extra")})
    with pytest.raises(InvalidSkillsError) as refused:
        await write_bundle(backend, tmp_path / "all.zip", trust=TrustPolicy(lock=lock))
    assert [(p.name, p.code) for p in refused.value.problems] == [("extra", codes.NOT_LOCKED)]
    bundle = await write_bundle(
        backend, tmp_path / "locked.zip", trust=TrustPolicy(lock=lock), skip_invalid=True
    )
    assert bundle.skills == ("pdf",)


async def test_search_indexes_no_body_that_differs_from_the_lock() -> None:
    """A catalog holding no bodies reads them for search: a changed one is left out."""
    backend = MemoryBackend({"pdf": {"SKILL.md": skill_md("pdf")}})
    lock = await lock_of(await refreshed(SkillCatalog(backend)))
    catalog = SkillCatalog(backend, keep_bodies=False, trust=TrustPolicy(lock=lock))
    await catalog.refresh()
    changed = skill_md("pdf") + b"\nAlso rotates zebraquux pages.\n"
    backend.put("pdf", {"SKILL.md": changed})  # no refresh: the search reads it
    assert await search_index(catalog).search_async("zebraquux") == []


def numbered_lock(number: int) -> SkillLock:
    """A lock of 200 skills, unlike every other number's: big enough for writes to overlap."""
    digest = f"sha256:{number:064x}"
    skills = [
        LockedSkill(f"skill-{index:03d}", f"skill-{index:03d}", f"/s/{index}", {"SKILL.md": digest})
        for index in range(200)
    ]
    return SkillLock(skills, source=f"/source/{number}")


def test_writers_at_once_each_leave_a_whole_lock_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "skills.lock"
    locks = [numbered_lock(number) for number in range(8)]
    start = threading.Barrier(len(locks))

    def write(lock: SkillLock) -> None:
        start.wait()
        for _ in range(25):
            lock.write(path)

    with ThreadPoolExecutor(len(locks)) as pool:
        list(pool.map(write, locks))  # re-raises the first writer's failure
    assert SkillLock.read(path) in locks
    assert [item.name for item in tmp_path.iterdir()] == ["skills.lock"]


def test_the_written_bytes_are_the_dumped_text(tmp_path: Path) -> None:
    lock = numbered_lock(1)
    lock.write(tmp_path / "skills.lock")
    assert (tmp_path / "skills.lock").read_bytes() == lock.dumps().encode()


def test_a_failed_write_leaves_no_temporary(tmp_path: Path) -> None:
    unwritable = SkillLock([], source=b"not text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not JSON serializable"):
        unwritable.write(tmp_path / "skills.lock")
    (tmp_path / "taken").mkdir()
    with pytest.raises(IsADirectoryError):  # a folder cannot be replaced by a file
        numbered_lock(1).write(tmp_path / "taken")
    with pytest.raises(FileNotFoundError):
        numbered_lock(1).write(tmp_path / "gone" / "skills.lock")
    assert sorted(item.name for item in tmp_path.iterdir()) == ["taken"]
