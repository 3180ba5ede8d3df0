"""The persistent catalog cache: a new process's first refresh is a no-change refresh.

A new catalog on a warm cache stands for a new process: a catalog keeps nothing else between
refreshes. Outcomes and reads are asserted, never times.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from backends import Limits, LocalBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import FormatLimits, SkillCatalog
from skills_core._catalog.cache import _JUDGING_CODE, FILE_NAME, CatalogCache, encode
from tests.support.files import files_of
from tests.support.processes import run_python

SKILLS = 20


def versioned(name: str, version: int) -> bytes:
    return skill_md(name, f"Version {version}.", body=f"# {name}\n\nBody version {version}.\n")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for index in range(SKILLS):
        name = f"skill-{index:02d}"
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_bytes(versioned(name, 1))
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_bytes(b"no frontmatter\n")
    (root / "misnamed").mkdir()
    (root / "misnamed" / "SKILL.md").write_bytes(skill_md("other-name", "Warned."))
    return root


@pytest.fixture
def cache(tmp_path: Path) -> CatalogCache:
    return CatalogCache(tmp_path / "cache")


async def warm(folder: Path, cache: CatalogCache, **options: object) -> SkillCatalog:
    """A catalog that refreshed once and saved what it learned."""
    catalog = SkillCatalog(LocalBackend(folder), cache=cache, **options)  # type: ignore[arg-type]
    report = await catalog.refresh()
    assert report.fetched == SKILLS + 2
    return catalog


async def test_a_new_process_reads_no_skill_md_on_an_unchanged_folder(
    folder: Path, cache: CatalogCache
) -> None:
    first = await warm(folder, cache)

    restarted = SkillCatalog(LocalBackend(folder), cache=cache)
    report = await restarted.refresh()
    assert (report.fetched, report.reads, report.bytes_read) == (0, 1, 0)
    assert report.added == first.snapshot.names  # new to this catalog
    assert restarted.list() == first.list()
    assert restarted.errors == first.errors
    assert restarted.warnings == first.warnings
    assert restarted.errors
    assert restarted.warnings
    skill = await restarted.get("skill-03")  # the body, read on demand
    assert skill.body.endswith("Body version 1.")
    assert await restarted.read_skill_md("skill-03") == versioned("skill-03", 1)

    again = await restarted.refresh()
    assert not again.has_changes
    assert again.fetched == 0


async def test_only_what_changed_while_no_process_ran_is_read(
    folder: Path, cache: CatalogCache
) -> None:
    await warm(folder, cache)

    def edit() -> None:
        (folder / "skill-01" / "SKILL.md").write_bytes(versioned("skill-01", 2))
        (folder / "skill-99").mkdir()
        (folder / "skill-99" / "SKILL.md").write_bytes(versioned("skill-99", 1))
        (folder / "skill-02" / "SKILL.md").unlink()
        (folder / "skill-02").rmdir()

    await asyncio.to_thread(edit)
    restarted = SkillCatalog(LocalBackend(folder), cache=cache)
    report = await restarted.refresh()
    assert report.fetched == 2
    assert restarted.metadata("skill-01").description == "Version 2."
    assert "skill-99" in restarted
    assert "skill-02" not in restarted

    third = SkillCatalog(LocalBackend(folder), cache=cache)
    assert (await third.refresh()).fetched == 0  # the second process saved what it read


async def test_a_restart_on_an_unchanged_folder_writes_nothing(
    folder: Path, cache: CatalogCache
) -> None:
    await warm(folder, cache)
    await asyncio.to_thread(cache.close)
    observer = await asyncio.to_thread(sqlite3.connect, cache.path, check_same_thread=False)

    def commits() -> int:  # moves when another connection commits a write
        return int(observer.execute("PRAGMA data_version").fetchone()[0])

    async def restart() -> int:
        before = await asyncio.to_thread(commits)
        restarted = CatalogCache(cache.folder)
        await SkillCatalog(LocalBackend(folder), cache=restarted).refresh()
        await asyncio.to_thread(restarted.close)
        return await asyncio.to_thread(commits) - before

    try:
        assert await restart() == 0
        (folder / "skill-01" / "SKILL.md").write_bytes(versioned("skill-01", 2))
        assert await restart() == 1  # the observer sees a write when there is one
        assert await restart() == 0
    finally:
        await asyncio.to_thread(observer.close)


async def test_an_edit_that_keeps_size_and_mtime_is_read_again(
    folder: Path, cache: CatalogCache
) -> None:
    await warm(folder, cache)
    path = folder / "skill-04" / "SKILL.md"

    def edit_in_place() -> None:
        before = path.stat()
        data = versioned("skill-04", 7)  # the same size as version 1
        assert len(data) == before.st_size
        with path.open("r+b") as file:  # in place: the same inode
            file.write(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = path.stat()
        assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
            before.st_mtime_ns,
            before.st_size,
            before.st_ino,
        )

    await asyncio.to_thread(edit_in_place)
    restarted = SkillCatalog(LocalBackend(folder), cache=cache)
    report = await restarted.refresh()
    assert report.fetched == 1  # the ctime told
    assert restarted.metadata("skill-04").description == "Version 7."


async def test_a_body_that_disagrees_with_the_stored_hash_is_judged_again(
    folder: Path, cache: CatalogCache
) -> None:
    first = await warm(folder, cache)
    # A store that cannot tell (a fingerprint that stays while the bytes change) is stood in
    # for by a cache entry whose hash is not the file's.
    settings = first._cache._settings  # type: ignore[union-attr]
    stored = await asyncio.to_thread(cache.stored, str(folder), settings)
    assert stored is not None
    decoded = await asyncio.to_thread(cache.decoded, str(folder), stored)
    assert decoded is not None
    entries = decoded[0]
    entry = entries["skill-05"]
    metadata = entry.metadata._replace(description="Stale.")  # type: ignore[union-attr]
    entries["skill-05"] = entry._replace(digest=bytes(32), metadata=metadata)
    digests = [stored.digest for stored in entries.values()]
    data = encode(entries, digests, [()] * len(entries))
    await asyncio.to_thread(cache.save, str(folder), settings, data, len(entries))

    restarted = SkillCatalog(LocalBackend(folder), cache=cache)
    assert (await restarted.refresh()).fetched == 0
    skill = await restarted.get("skill-05")
    assert skill.description == "Version 1."  # judged from the bytes read, not the cache
    assert skill.body.endswith("Body version 1.")


@pytest.mark.parametrize(
    "options",
    [
        {"strict": True},
        {"limits": Limits(max_skill_md_bytes=4096)},
        {"format_limits": FormatLimits(max_yaml_depth=8)},
    ],
    ids=["strict", "limits", "format_limits"],
)
async def test_a_catalog_judging_otherwise_reuses_nothing(
    folder: Path, cache: CatalogCache, options: dict[str, object]
) -> None:
    await warm(folder, cache)
    other = SkillCatalog(LocalBackend(folder), cache=cache, **options)  # type: ignore[arg-type]
    assert (await other.refresh()).fetched == SKILLS + 2
    assert len(await asyncio.to_thread(cache.catalogs)) == 2
    again = SkillCatalog(LocalBackend(folder), cache=cache, **options)  # type: ignore[arg-type]
    assert (await again.refresh()).fetched == 0


async def test_keep_bodies_false_and_the_default_share_entries(
    folder: Path, cache: CatalogCache
) -> None:
    await warm(folder, cache, keep_bodies=False)
    restarted = SkillCatalog(LocalBackend(folder), cache=cache)
    assert (await restarted.refresh()).fetched == 0
    with pytest.raises(RuntimeError, match="read_skill_md"):
        restarted.skill_md("skill-00")  # not held: it came from the cache


async def test_the_cache_folder_is_private_and_old_sources_are_pruned(
    folder: Path, tmp_path: Path
) -> None:
    cache = CatalogCache(tmp_path / "nested" / "cache")
    await warm(folder, cache)
    mode = (tmp_path / "nested" / "cache").stat().st_mode
    assert stat.S_IMODE(mode) == 0o700
    assert stat.S_IMODE(cache.path.stat().st_mode) == 0o600

    other = tmp_path / "other"
    (other / "one").mkdir(parents=True)
    (other / "one" / "SKILL.md").write_bytes(skill_md("one"))
    pruning = CatalogCache(cache.folder, max_age=0)  # anything not seen by this save goes
    await SkillCatalog(LocalBackend(other), cache=pruning).refresh()
    assert [row.source for row in await asyncio.to_thread(pruning.catalogs)] == [str(other)]


async def test_without_a_cache_nothing_is_written(folder: Path) -> None:
    default = Path(os.environ["SKILLFS_CACHE_DIR"])
    await SkillCatalog(LocalBackend(folder)).refresh()
    assert not await asyncio.to_thread(lambda: list(default.iterdir()))
    await SkillCatalog(LocalBackend(folder), cache=True).refresh()
    assert await asyncio.to_thread((default / "catalogs.sqlite3").exists)


async def test_memory_backends_are_never_cached(cache: CatalogCache) -> None:
    # Each memory backend counts versions from 1: another one's "v1" is another file.
    for description in ("First.", "Second."):
        backend = MemoryBackend({"one": {"SKILL.md": skill_md("one", description)}})
        catalog = SkillCatalog(backend, cache=cache)
        assert (await catalog.refresh()).fetched == 1
        assert catalog.metadata("one").description == description
    assert not await asyncio.to_thread(cache.catalogs)


async def test_listing_the_cache_writes_nothing_and_sees_what_a_writer_holds(
    folder: Path, cache: CatalogCache
) -> None:
    await warm(folder, cache)  # its connection stays open: the row is in the write-ahead log
    held = await asyncio.to_thread(files_of, cache.folder)
    assert sorted(held) == [FILE_NAME, f"{FILE_NAME}-shm", f"{FILE_NAME}-wal"]
    expected = await asyncio.to_thread(cache.catalogs)
    assert [(row.source, row.judged) for row in expected] == [(str(folder), "lenient")]

    listed = await asyncio.to_thread(CatalogCache(cache.folder).catalogs)
    assert listed == expected
    now = await asyncio.to_thread(files_of, cache.folder)
    assert sorted(now) == sorted(held)
    assert now[FILE_NAME] == held[FILE_NAME]

    await asyncio.to_thread(cache.close)  # the last connection: the log goes into the file
    await asyncio.to_thread(cache.path.chmod, 0o444)
    alone = await asyncio.to_thread(files_of, cache.folder)
    assert sorted(alone) == [FILE_NAME]
    assert await asyncio.to_thread(CatalogCache(cache.folder).catalogs) == expected
    assert await asyncio.to_thread(files_of, cache.folder) == alone  # no side file, same mode


@pytest.mark.parametrize("as_path", [str, Path], ids=["str", "PathLike"])
async def test_a_folder_path_is_a_cache_folder(
    folder: Path, tmp_path: Path, as_path: type[str] | type[Path]
) -> None:
    where = tmp_path / "by-path"
    await SkillCatalog(LocalBackend(folder), cache=as_path(where)).refresh()
    assert (where / FILE_NAME).is_file()

    restarted = SkillCatalog(LocalBackend(folder), cache=as_path(where))
    assert (await restarted.refresh()).fetched == 0


def test_a_cache_of_another_type_is_refused_at_once(folder: Path) -> None:
    with pytest.raises(TypeError, match="cache must be a bool, a CatalogCache or a folder's path"):
        SkillCatalog(LocalBackend(folder), cache=3)  # type: ignore[arg-type]


def test_a_process_ending_with_its_catalog_held_leaves_no_side_files(
    folder: Path, tmp_path: Path
) -> None:
    """A catalog still referenced at exit (here by a daemon thread, as the CLI's abandoned
    worker threads may hold one) closes its cache: no write-ahead log or index is left."""
    cache = tmp_path / "cache"
    program = (
        "import asyncio, threading, time\n"
        "from backends import LocalBackend\n"
        "from skills_core import SkillCatalog\n"
        f"catalog = SkillCatalog(LocalBackend({str(folder)!r}), cache={str(cache)!r})\n"
        "asyncio.run(catalog.refresh())\n"
        "threading.Thread(target=lambda held=catalog: time.sleep(60), daemon=True).start()\n"
    )
    done = run_python("-c", program, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in cache.iterdir()) == [FILE_NAME]


def derived_rows(cache: CatalogCache) -> list[tuple[str, bytes]]:
    with contextlib.closing(sqlite3.connect(cache.path)) as db:
        return db.execute("SELECT source, digest FROM derived ORDER BY source, digest").fetchall()


async def test_derived_values_are_kept_by_digest_and_pruned_with_their_entries(
    folder: Path, tmp_path: Path
) -> None:
    cache = CatalogCache(tmp_path / "cache")
    catalog = await warm(folder, cache)
    link = catalog.derived_store
    assert link is not None
    digests = {
        name: bytes.fromhex(catalog.skill_md_digest(name)[7:]) for name in ("skill-00", "skill-01")
    }
    await link.save_derived("words v1", {digest: b"w " + digest for digest in digests.values()})
    assert await link.derived("words v1", [*digests.values(), b"other"]) == {
        digest: b"w " + digest for digest in digests.values()
    }
    assert await link.derived("words v2", list(digests.values())) == {}  # another kind

    (folder / "skill-00" / "SKILL.md").write_bytes(versioned("skill-00", 2))  # an edit
    assert (await catalog.refresh()).fetched == 1
    assert derived_rows(cache) == [(str(folder), digests["skill-01"])]  # its old value went

    other = tmp_path / "other"
    (other / "one").mkdir(parents=True)
    (other / "one" / "SKILL.md").write_bytes(skill_md("one"))
    pruning = CatalogCache(cache.folder, max_age=0)  # the first source's entries go, and so
    await SkillCatalog(LocalBackend(other), cache=pruning).refresh()  # do their values
    assert derived_rows(cache) == []


async def test_no_value_is_kept_for_a_source_without_entries(tmp_path: Path) -> None:
    cache = CatalogCache(tmp_path / "cache")
    await asyncio.to_thread(cache.save_derived, "nowhere", "settings", "words", {b"d": b"w"})
    assert await asyncio.to_thread(cache.derived, "nowhere", "settings", "words", [b"d"]) == {}


async def test_a_file_of_the_previous_layout_gains_the_derived_table(
    folder: Path, cache: CatalogCache
) -> None:
    catalog = await warm(folder, cache)
    await asyncio.to_thread(cache.close)
    with contextlib.closing(sqlite3.connect(cache.path)) as db:
        db.execute("DROP TABLE derived")
    restarted = SkillCatalog(LocalBackend(folder), cache=CatalogCache(cache.folder))
    assert (await restarted.refresh()).fetched == 0  # the entries are still read
    link = restarted.derived_store
    assert link is not None
    digest = bytes.fromhex(catalog.skill_md_digest("skill-00")[7:])
    assert await link.derived("words", [digest]) == {}  # no table yet: none
    await link.save_derived("words", {digest: b"w"})
    assert await link.derived("words", [digest]) == {digest: b"w"}


def test_the_code_that_judges_is_in_the_settings_digest() -> None:
    for folder in _JUDGING_CODE:
        assert list(folder.glob("*.py")), folder  # each exists (a renamed one counted nothing)
