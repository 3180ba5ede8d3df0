"""A catalog cache file is never trusted blindly and never fatal; processes share it.

Each damaged or foreign file is ignored and rebuilt: the refresh reads every skill, succeeds,
and the next process finds a good cache again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._catalog.cache import FILE_NAME, CatalogCache, decode, framed

SKILLS = 12
ROOT = Path(__file__).parents[2]

REFRESH = """
import asyncio, json, sys
from backends import LocalBackend
from skills_core import SkillCatalog
from skills_core._catalog.cache import CatalogCache

async def main():
    catalog = SkillCatalog(LocalBackend(sys.argv[1]), cache=CatalogCache(sys.argv[2]))
    report = await catalog.refresh()
    print(json.dumps({"added": len(report.added), "fetched": report.fetched}))

asyncio.run(main())
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for index in range(SKILLS):
        (root / f"s{index}").mkdir(parents=True)
        (root / f"s{index}" / "SKILL.md").write_bytes(skill_md(f"s{index}"))
    return root


@pytest.fixture
def cache_folder(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def refresh_in_process(folder: Path, cache_folder: Path, **run: object) -> dict[str, int]:
    """Refresh a catalog of ``folder`` in a new Python process; its report's counts."""
    done = subprocess.run(
        [sys.executable, "-c", REFRESH, str(folder), str(cache_folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **run,  # type: ignore[call-overload]
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


async def fetched(folder: Path, cache_folder: Path, **options: float) -> int:
    """How many SKILL.md files a new catalog's first refresh read (closing the cache after,
    as a process's exit does)."""
    cache = CatalogCache(cache_folder, **options)
    report = await SkillCatalog(LocalBackend(folder), cache=cache).refresh()
    await asyncio.to_thread(cache.close)
    assert len(report.added) == SKILLS
    assert report.failure is None
    return report.fetched


def other_users_can_write(path: Path) -> None:
    path.chmod(0o666)


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database" * 100)


def truncated(path: Path) -> None:
    with path.open("r+b") as file:
        file.truncate(path.stat().st_size // 2)


def future_schema(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")


def planted_pickle(path: Path) -> None:
    """A blob that would run a command if it were unpickled as it stands."""
    marker = path.parent.parent / "pwned"
    blob = pickle.dumps(_Run(f"touch {marker}"))
    db = sqlite3.connect(path)
    db.execute("UPDATE catalogs SET entries = ?", (blob,))
    db.commit()
    db.close()


class _Run:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Callable[[str], int], tuple[str]]:
        return os.system, (self.command,)


@pytest.mark.parametrize(
    "damage",
    [other_users_can_write, garbage, truncated, future_schema, planted_pickle],
)
async def test_a_damaged_or_foreign_cache_file_is_ignored_and_rebuilt(
    folder: Path,
    cache_folder: Path,
    damage: Callable[[Path], None],
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert await fetched(folder, cache_folder) == SKILLS
    path = cache_folder / FILE_NAME
    await asyncio.to_thread(damage, path)

    with caplog.at_level(logging.WARNING, logger="skillfs"):
        assert await fetched(folder, cache_folder) == SKILLS  # nothing trusted
    assert len(caplog.records) == 1  # logged once
    assert not (cache_folder.parent / "pwned").exists()
    assert (path.stat().st_mode & 0o777) == 0o600
    assert await fetched(folder, cache_folder) == 0  # rebuilt


async def test_a_cache_file_of_another_user_is_not_trusted(
    folder: Path, cache_folder: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    assert await fetched(folder, cache_folder) == SKILLS
    os.chown(cache_folder / FILE_NAME, 4242, 4242)
    assert await fetched(folder, cache_folder) == SKILLS
    assert (cache_folder / FILE_NAME).stat().st_uid == 0
    assert await fetched(folder, cache_folder) == 0


async def test_a_cache_folder_others_can_write_is_not_used(
    folder: Path, cache_folder: Path
) -> None:
    await asyncio.to_thread(cache_folder.mkdir, mode=0o777)
    await asyncio.to_thread(cache_folder.chmod, 0o777)
    assert await fetched(folder, cache_folder) == SKILLS
    assert await fetched(folder, cache_folder) == SKILLS
    assert not (cache_folder / FILE_NAME).exists()


def test_a_writer_killed_in_a_transaction_leaves_a_usable_cache(
    folder: Path, cache_folder: Path
) -> None:
    assert refresh_in_process(folder, cache_folder)["fetched"] == SKILLS
    crash = (
        "import os, signal, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('BEGIN IMMEDIATE')\n"
        "db.execute(\"UPDATE catalogs SET entries = x'00'\")\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run(
        [sys.executable, "-c", crash, str(cache_folder / FILE_NAME)], check=False
    )
    assert killed.returncode == -9
    assert refresh_in_process(folder, cache_folder) == {"added": SKILLS, "fetched": 0}


async def test_a_lock_held_too_long_means_going_without(folder: Path, cache_folder: Path) -> None:
    assert await fetched(folder, cache_folder) == SKILLS
    hold = (
        "import sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('BEGIN EXCLUSIVE')\n"
        "print('locked', flush=True)\n"
        "sys.stdin.read()\n"
    )
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        hold,
        str(cache_folder / FILE_NAME),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert await holder.stdout.readline() == b"locked\n"
        edited = folder / "s0" / "SKILL.md"
        await asyncio.to_thread(edited.write_bytes, skill_md("s0", "Edited."))
        # WAL readers do not wait for a writer; the save gives up after the timeout.
        assert await fetched(folder, cache_folder, timeout=0.1) == 1
    finally:
        await holder.communicate(b"")
    assert await fetched(folder, cache_folder) == 1  # the edit was not saved: read again
    assert await fetched(folder, cache_folder) == 0


def test_processes_refreshing_one_source_at_once_all_succeed(
    folder: Path, cache_folder: Path
) -> None:
    command = [sys.executable, "-c", REFRESH, str(folder), str(cache_folder)]
    running = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    for process in running:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        assert json.loads(out)["added"] == SKILLS
    assert refresh_in_process(folder, cache_folder) == {"added": SKILLS, "fetched": 0}


def test_a_full_disk_degrades_to_no_cache(folder: Path, cache_folder: Path) -> None:
    # RLIMIT_FSIZE: a write past 4 KiB fails as on a full disk (EFBIG, SIGXFSZ ignored).
    def small_disk() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    for index in range(200):
        (folder / f"m{index}").mkdir()
        (folder / f"m{index}" / "SKILL.md").write_bytes(skill_md(f"m{index}", "x" * 200))
    report = refresh_in_process(folder, cache_folder, preexec_fn=small_disk)
    assert report == {"added": SKILLS + 200, "fetched": SKILLS + 200}
    assert CatalogCache(cache_folder).catalogs() == []  # the save failed; the refresh did not


def test_a_planted_column_with_a_valid_checksum_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    columns = ({"name": ["one"]}, [True], {"name": [_Run(f"touch {marker}")]}, [()])
    data = framed(pickle.dumps(columns))
    with pytest.raises(ValueError, match="is not part of a catalog entry"):
        decode(data)
    assert not marker.exists()
