"""A locked catalog uses the persistent cache, keyed by its lock: a restart reads no SKILL.md.

A new catalog on a warm cache stands for a new process. A changed lock or a changed file is
still caught: the lock is part of the key, and files are checked as they are read.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog, lock_of
from skills_core import _codes as codes
from skills_core._catalog.cache import CatalogCache
from skills_core._errors import LockMismatchError
from skills_core._trust.lock import SkillLock
from skills_core._trust.policy import TrustPolicy

NAMES = ("alpha", "beta", "gamma")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name in NAMES:
        (root / name / "scripts").mkdir(parents=True)
        (root / name / "SKILL.md").write_bytes(skill_md(name))
        (root / name / "scripts" / "run.py").write_text(f"print({name!r})\n")
    return root


@pytest.fixture
async def lock_file(folder: Path, tmp_path: Path) -> Path:
    catalog = SkillCatalog(LocalBackend(folder))
    await catalog.refresh()
    path = tmp_path / "skills.lock"
    await asyncio.to_thread((await lock_of(catalog)).write, path)
    return path


@pytest.fixture
def cache(tmp_path: Path) -> CatalogCache:
    return CatalogCache(tmp_path / "cache")


async def started(folder: Path, cache: CatalogCache, lock: Path | SkillLock) -> SkillCatalog:
    catalog = SkillCatalog(LocalBackend(folder), cache=cache, trust=TrustPolicy(lock=lock))
    (await catalog.refresh()).raise_for_failure()
    return catalog


async def test_a_restart_with_the_same_lock_reads_no_skill_md(
    folder: Path, cache: CatalogCache, lock_file: Path
) -> None:
    first = SkillCatalog(LocalBackend(folder), cache=cache, trust=TrustPolicy(lock=lock_file))
    assert (await first.refresh()).fetched == len(NAMES)

    restarted = SkillCatalog(LocalBackend(folder), cache=cache, trust=TrustPolicy(lock=lock_file))
    report = await restarted.refresh()
    assert (report.fetched, report.reads) == (0, 1)
    assert [meta.name for meta in restarted.list()] == list(NAMES)
    assert (await restarted.get("alpha")).body == (await first.get("alpha")).body
    assert await restarted.read_resource("alpha", "scripts/run.py") == b"print('alpha')\n"
    rows = await asyncio.to_thread(cache.catalogs)
    assert [row.judged for row in rows] == ["lenient +lock"]


async def test_a_changed_lock_judges_every_skill_again(
    folder: Path, cache: CatalogCache, lock_file: Path
) -> None:
    await started(folder, cache, lock_file)
    full = await asyncio.to_thread(SkillLock.read, lock_file)
    narrower = SkillLock([], source=full.source, location=str(lock_file)).pinning("beta", full)
    await asyncio.to_thread(narrower.write, lock_file)

    restarted = SkillCatalog(LocalBackend(folder), cache=cache, trust=TrustPolicy(lock=lock_file))
    report = await restarted.refresh()
    assert report.fetched == len(NAMES)
    assert [meta.name for meta in restarted.list()] == ["beta"]
    assert {problem.name: problem.code for problem in restarted.errors} == {
        "alpha": codes.NOT_LOCKED,
        "gamma": codes.NOT_LOCKED,
    }


async def test_a_changed_file_is_still_refused_after_a_restart(
    folder: Path, cache: CatalogCache, lock_file: Path
) -> None:
    await started(folder, cache, lock_file)
    (folder / "alpha" / "SKILL.md").write_bytes(skill_md("alpha", "Changed. Use for alpha."))
    (folder / "beta" / "scripts" / "run.py").write_text("print('swapped')\n")

    restarted = SkillCatalog(LocalBackend(folder), cache=cache, trust=TrustPolicy(lock=lock_file))
    report = await restarted.refresh()
    assert report.fetched == 1  # alpha's SKILL.md only
    assert [meta.name for meta in restarted.list()] == ["beta", "gamma"]
    assert [(problem.name, problem.code) for problem in restarted.errors] == [
        ("alpha", codes.LOCK_MISMATCH)
    ]
    with pytest.raises(LockMismatchError, match=r"scripts/run\.py differs from the lock"):
        await restarted.read_resource("beta", "scripts/run.py")


async def test_a_lock_given_as_an_object_shares_the_file_s_cache(
    folder: Path, cache: CatalogCache, lock_file: Path
) -> None:
    await started(folder, cache, lock_file)
    lock = await asyncio.to_thread(SkillLock.read, lock_file)
    restarted = SkillCatalog(LocalBackend(folder), cache=cache, trust=TrustPolicy(lock=lock))
    assert (await restarted.refresh()).fetched == 0
    unlocked = SkillCatalog(LocalBackend(folder), cache=cache)
    assert (await unlocked.refresh()).fetched == len(NAMES)  # judged without a lock: its own
