"""Search reads whole bodies whatever the catalog keeps: a warm persistent cache, metadata only.

Skills restored from the persistent cache (or kept metadata-only) hold no SKILL.md bytes; the
index reads each body once, through the catalog, before it indexes the skill, unless the cache
keeps the body's words (by the SKILL.md's digest) from an earlier search: then it reads none.
Reads are counted at a real LocalBackend (its ``get`` calls: the catalog's body path) or a
CountingBackend over a MemoryBackend, never timed; bodies cut into words by counting
``PythonPostings.count`` calls (what the cache keeps is made by it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from backends import LocalBackend, MemoryBackend, SkillDocument
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._catalog.cache import FILE_NAME, CatalogCache, encode_value, framed
from skills_core.context import SelectionPolicy, search_index, select_skills
from skills_core.context._derived import BodiesNotRead
from skills_core.context._search import run_selection
from skills_core.context._words import PythonPostings
from tests.support.backends import CountingBackend

SKILLS = 12
FILLER = "Read the request, then follow the usual steps of this skill carefully. " * 40
ALL = SelectionPolicy(top_k=SKILLS)


def body(index: int) -> str:
    """A body whose telling words sit past its first 2,000 characters."""
    deep = "quaternion rotations" if index == 7 else f"topic{index} ledger"
    return f"# skill {index}\n\n{FILLER}\n\nAt last: {deep} and spreadsheets.\n"


def tree() -> dict[str, bytes]:
    return {
        f"skill-{index:02d}/SKILL.md": skill_md(f"skill-{index:02d}", "Helps.", body(index))
        for index in range(SKILLS)
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for path, data in tree().items():
        (root / path).parent.mkdir(parents=True)
        (root / path).write_bytes(data)
    return root


def ranking(matches: list) -> list[tuple[str, float, str | None]]:  # type: ignore[type-arg]
    return [(match.name, round(match.score, 9), match.strength) for match in matches]


class CountingLocal(LocalBackend):
    """A real local folder that records each SKILL.md read one by one (a body read)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.fetched: list[str] = []

    async def get(self, name: str) -> SkillDocument:
        self.fetched.append(name)
        return await super().get(name)


async def restarted(folder: Path, cache: CatalogCache, **options: Any) -> SkillCatalog:
    """A warm cache, then a new catalog on it (a new process) that read no SKILL.md."""
    warming = SkillCatalog(CountingLocal(folder), cache=cache)  # the cache keys the class
    assert (await warming.refresh()).fetched == SKILLS
    catalog = SkillCatalog(CountingLocal(folder), cache=cache, **options)
    assert (await catalog.refresh()).fetched == 0
    return catalog


def body_reads(catalog: SkillCatalog) -> list[str]:
    backend = catalog.backend
    assert isinstance(backend, CountingLocal)
    return backend.fetched


@pytest.mark.parametrize("keep_bodies", [True, False])
async def test_a_cached_catalog_ranks_as_one_holding_bodies_reading_each_body_once(
    folder: Path, tmp_path: Path, keep_bodies: bool
) -> None:
    held = SkillCatalog(LocalBackend(folder))
    await held.refresh()
    cached = await restarted(folder, CatalogCache(tmp_path / "cache"), keep_bodies=keep_bodies)
    reads = body_reads(cached)
    assert not cached.snapshot.loaded["skill-07"].raw
    index = search_index(cached)

    with pytest.raises(BodiesNotRead, match="search_async"):  # never a silent head-only search
        index.search("quaternion")
    assert reads == []

    for query in ("quaternion rotations", "spreadsheets ledger", "topic3 steps"):
        expected = ranking(await search_index(held).search_async(query, ALL))
        assert ranking(await index.search_async(query, ALL)) == expected
    assert ranking(index.search("quaternion"))[0][0] == "skill-07"  # indexed: sync works now
    assert sorted(reads) == sorted(f"skill-{i:02d}" for i in range(SKILLS))
    assert not cached.snapshot.loaded["skill-07"].raw  # the index keeps counts, not text

    # An edit: the refresh reads it; the index reads it again only if the catalog dropped it.
    path = folder / "skill-03" / "SKILL.md"
    path.write_bytes(skill_md("skill-03", "Helps.", body(3) + "Also quaternion maths.\n"))
    reads.clear()
    assert (await cached.refresh()).fetched == 1
    found = await index.search_async("quaternion", ALL)
    assert [match.name for match in found] == ["skill-07", "skill-03"]
    assert reads == ([] if keep_bodies else ["skill-03"])
    assert index.indexed == SKILLS + 1


async def test_concurrent_first_searches_read_each_body_once(folder: Path, tmp_path: Path) -> None:
    catalog = await restarted(folder, CatalogCache(tmp_path / "cache"))
    index = search_index(catalog)
    results = await asyncio.gather(*(index.search_async("quaternion") for _ in range(4)))
    assert {result[0].name for result in results} == {"skill-07"}
    assert len(body_reads(catalog)) == SKILLS


async def test_lexical_selection_reads_the_bodies_of_a_metadata_only_catalog() -> None:
    skills = {path.split("/")[0]: {"SKILL.md": data} for path, data in tree().items()}
    backend = CountingBackend(MemoryBackend(skills))
    catalog = SkillCatalog(backend, keep_bodies=False)  # type: ignore[arg-type]
    await catalog.refresh()
    backend.fetched.clear()
    policy = SelectionPolicy(min_score=0.1)
    with pytest.raises(BodiesNotRead):
        select_skills(catalog, "quaternion", policy)
    found = await run_selection(
        catalog, select_skills, lambda: select_skills(catalog, "quaternion", policy)
    )
    assert [match.name for match in found] == ["skill-07"]
    assert len(backend.fetched) == SKILLS


def restarted_again(folder: Path, cache_folder: Path, **options: Any) -> SkillCatalog:
    """A new catalog on a newly opened cache (a new process), not refreshed yet."""
    return SkillCatalog(CountingLocal(folder), cache=CatalogCache(cache_folder), **options)


@pytest.fixture
def cut(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Lengths of the bodies cut into the words the cache keeps (``PythonPostings.count``)."""
    lengths: list[int] = []
    count = PythonPostings.count

    def counted(self: PythonPostings, data: bytes) -> Any:
        lengths.append(len(data))
        return count(self, data)

    monkeypatch.setattr(PythonPostings, "count", counted)
    return lengths


@pytest.mark.parametrize("keep_bodies", [True, False])
async def test_a_new_process_searches_from_the_cached_words_reading_no_body(
    folder: Path, tmp_path: Path, keep_bodies: bool, cut: list[int]
) -> None:
    held = search_index(SkillCatalog(LocalBackend(folder)))
    await held.catalog.refresh()
    first = await restarted(folder, CatalogCache(tmp_path / "cache"), keep_bodies=keep_bodies)
    await search_index(first).search_async("quaternion")  # reads every body; keeps its words
    assert len(body_reads(first)) == SKILLS
    assert len(cut) == SKILLS

    cut.clear()
    catalog = restarted_again(folder, tmp_path / "cache", keep_bodies=keep_bodies)
    assert (await catalog.refresh()).fetched == 0
    index = search_index(catalog)
    for query in ("quaternion rotations", "spreadsheets ledger", "topic3 steps"):
        expected = ranking(await held.search_async(query, ALL))
        assert ranking(await index.search_async(query, ALL)) == expected
    assert index.strong_bar() == held.strong_bar()
    assert body_reads(catalog) == []
    assert cut == []  # no body cut again: the words came from the cache

    # An edit: the refresh reads it (keep_bodies=False drops it: the search reads it again);
    # that one skill alone is indexed again and its words made and kept.
    path = folder / "skill-03" / "SKILL.md"
    path.write_bytes(skill_md("skill-03", "Helps.", body(3) + "Also quaternion maths.\n"))
    assert (await catalog.refresh()).fetched == 1
    found = await index.search_async("quaternion", ALL)
    assert [match.name for match in found] == ["skill-07", "skill-03"]
    assert index.indexed == SKILLS + 1
    assert len(cut) == 1
    assert body_reads(catalog) == ([] if keep_bodies else ["skill-03"])  # the refresh uncounted

    later = restarted_again(folder, tmp_path / "cache", keep_bodies=keep_bodies)
    await later.refresh()
    await held.catalog.refresh()
    expected = ranking(await held.search_async("quaternion", ALL))
    assert ranking(await search_index(later).search_async("quaternion", ALL)) == expected
    assert body_reads(later) == []


def damage(cache_folder: Path, how: Callable[[bytes], bytes]) -> int:
    """Rewrite every derived value kept in the cache file with ``how``; how many."""
    with contextlib.closing(sqlite3.connect(cache_folder / FILE_NAME)) as db, db:
        rows = db.execute("SELECT rowid, data FROM derived").fetchall()
        damaged = [(how(data), rowid) for rowid, data in rows]
        db.executemany("UPDATE derived SET data = ? WHERE rowid = ?", damaged)
    return len(rows)


class Pwned:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch pwned",))


FOREIGN: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda data: data[: len(data) // 2],
    "flipped": lambda data: data[:-1] + bytes([data[-1] ^ 1]),
    "a forbidden global": lambda data: framed(
        zlib.compress(pickle.dumps(Pwned())), b"skillfs-derived-1"
    ),
    "another type": lambda data: encode_value(("words", 3)),
}


@pytest.mark.parametrize("how", FOREIGN.values(), ids=FOREIGN.keys())
async def test_a_damaged_or_foreign_derived_value_is_ignored(
    folder: Path, tmp_path: Path, how: Callable[[bytes], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    held = search_index(SkillCatalog(LocalBackend(folder)))
    await held.catalog.refresh()
    first = await restarted(folder, CatalogCache(tmp_path / "cache"))
    await search_index(first).search_async("ledger")
    assert damage(tmp_path / "cache", how) == SKILLS

    catalog = restarted_again(folder, tmp_path / "cache")
    await catalog.refresh()
    index = search_index(catalog)
    for query in ("quaternion rotations", "spreadsheets ledger"):
        expected = ranking(await held.search_async(query, ALL))
        assert ranking(await index.search_async(query, ALL)) == expected
    assert len(body_reads(catalog)) == SKILLS  # each value ignored: its body read instead
    assert not (tmp_path / "pwned").exists()

    again = restarted_again(folder, tmp_path / "cache")  # the values were made and kept again
    await again.refresh()
    await search_index(again).search_async("ledger")
    assert body_reads(again) == []
