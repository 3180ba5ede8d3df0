"""Lock what a catalog serves, and check what a locked catalog serves against its lock.

A lock holds every loaded skill with the SHA-256 of each of its files.
A file whose backend already lists a verified ``sha256:`` digest (MCP lists one per file and
checks every read against it) is locked from its listing; every other file is read once, through
the catalog (limits and path confinement apply), and hashed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from backends.digests import digest_off_loop, is_digest
from backends.paths import SKILL_MD_NAMES, skill_md_name
from skills_core import codes
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.loading import Progress
from skills_core.catalog.lock import LockedSkill, SkillLock, refusal
from skills_core.errors import LockMismatchError
from skills_core.format.models import SkillProblem

_PARALLEL_SKILLS = 16
T = TypeVar("T")


async def lock_of(catalog: SkillCatalog, progress: Progress | None = None) -> SkillLock:
    """The lock of every skill ``catalog`` serves now (refresh it first).

    ``progress`` hears how many skills were hashed, as each one is.

    Raises:
        StorageError: A file of a served skill could not be read.
    """
    skills = await _each_skill(catalog, _locked_skill, progress)
    return SkillLock(skills, source=catalog.backend.location)


async def lock_problems(
    catalog: SkillCatalog, progress: Progress | None = None
) -> list[SkillProblem]:
    """Each file of a served skill that breaks the catalog's lock, as a ``LOCK_MISMATCH``.

    A file breaks it when it differs, when the lock does not name it, or when the lock names
    it and it is gone; each is read through the catalog, which checks it against the lock.
    An unlocked catalog has none. ``progress`` hears how many skills were checked.

    Raises:
        StorageError: A file of a served skill could not be read.
    """
    lock = catalog.lock
    if lock is None:
        return []

    def problems(catalog: SkillCatalog, name: str) -> Awaitable[list[SkillProblem]]:
        return _skill_problems(catalog, lock, name)

    checks = await _each_skill(catalog, problems, progress)
    return [problem for found in checks for problem in found]


async def _each_skill(
    catalog: SkillCatalog,
    work: Callable[[SkillCatalog, str], Awaitable[T]],
    progress: Progress | None,
) -> list[T]:
    """``work`` on every served skill, :data:`_PARALLEL_SKILLS` at a time, in name order."""
    gate = asyncio.Semaphore(_PARALLEL_SKILLS)
    names = [meta.name for meta in catalog.list()]
    done = 0

    async def one(name: str) -> T:
        nonlocal done
        async with gate:
            result = await work(catalog, name)
        done += 1
        if progress is not None:
            progress(done, len(names))
        return result

    return await asyncio.gather(*(one(name) for name in names))


async def _skill_problems(catalog: SkillCatalog, lock: SkillLock, name: str) -> list[SkillProblem]:
    skill = await catalog.get(name)
    found = []
    for file in skill.files:
        if file.path in SKILL_MD_NAMES:  # judged against the lock as it loaded
            continue
        try:
            await catalog.read_resource(name, file.path)
        except LockMismatchError as exc:
            found.append(refusal(name, exc))
    gone = lock.skills[name].files.keys() - {*(file.path for file in skill.files), *SKILL_MD_NAMES}
    message = "{} is locked in {} but gone from the skill"
    found += (
        SkillProblem(name, skill.location, codes.LOCK_MISMATCH, message.format(path, lock.location))
        for path in sorted(gone)
    )
    return found


async def _locked_skill(catalog: SkillCatalog, name: str) -> LockedSkill:
    skill = await catalog.get(name)
    skill_md = skill_md_name([file.path for file in skill.files])
    files: dict[str, str] = {}
    if skill_md is None:  # a backend that lists no SKILL.md: lock the bytes served
        files["SKILL.md"] = await digest_off_loop(await catalog.read_skill_md(name))
    for file in skill.files:
        if is_digest(file.fingerprint):
            files[file.path] = file.fingerprint
        elif file.path == skill_md:
            files[file.path] = await digest_off_loop(await catalog.read_skill_md(name))
        else:
            files[file.path] = await digest_off_loop(await catalog.read_resource(name, file.path))
    return LockedSkill(name, catalog.folder(name), skill.location, files)
