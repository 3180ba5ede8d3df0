"""Large files are hashed in a worker thread: lock checks, lock writing and content digests.

Hashing is CPU work blockbuster cannot see, so a profile hook on the event loop's thread
records every :func:`backends._digests.digest_of` run there and the size it hashed.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from backends import LocalBackend
from backends._digests import INLINE_HASH_BYTES, digest_of, digest_off_loop, skill_digest
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._catalog.catalog import lock_of
from skills_core._trust.policy import TrustPolicy

BIG = b"x" * (4 * INLINE_HASH_BYTES)


@contextmanager
def hashed_on_this_thread() -> Iterator[list[int]]:
    """The sizes :func:`digest_of` hashes on the calling thread while the block runs."""
    sizes: list[int] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is digest_of.__code__:
            sizes.append(len(frame.f_locals["data"]))

    sys.setprofile(profile)
    try:
        yield sizes
    finally:
        sys.setprofile(None)


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    (tmp_path / "big" / "assets").mkdir(parents=True)
    (tmp_path / "big" / "SKILL.md").write_bytes(skill_md("big"))
    (tmp_path / "big" / "assets" / "data.bin").write_bytes(BIG)
    return tmp_path


async def read_locked(skills: Path) -> list[int]:
    unlocked = SkillCatalog(LocalBackend(skills))
    await unlocked.refresh()
    catalog = SkillCatalog(LocalBackend(skills), trust=TrustPolicy(lock=await lock_of(unlocked)))
    await catalog.refresh()
    with hashed_on_this_thread() as sizes:
        assert await catalog.read_resource("big", "assets/data.bin") == BIG
    return sizes


async def write_lock(skills: Path) -> list[int]:
    catalog = SkillCatalog(LocalBackend(skills))
    await catalog.refresh()
    with hashed_on_this_thread() as sizes:
        await lock_of(catalog)
    return sizes


async def digest_skill(skills: Path) -> list[int]:
    with hashed_on_this_thread() as sizes:
        await skill_digest(LocalBackend(skills), "big")
    return sizes


@pytest.mark.parametrize("caller", [read_locked, write_lock, digest_skill])
async def test_no_large_file_is_hashed_on_the_loop(
    skills: Path, caller: Callable[[Path], Awaitable[list[int]]]
) -> None:
    assert all(size <= INLINE_HASH_BYTES for size in await caller(skills))


async def test_only_data_over_the_threshold_goes_to_a_thread() -> None:
    small = BIG[:INLINE_HASH_BYTES]
    with hashed_on_this_thread() as sizes:
        digests = [await digest_off_loop(BIG), await digest_off_loop(small)]
    assert digests == [digest_of(BIG), digest_of(small)]
    assert sizes == [INLINE_HASH_BYTES]
