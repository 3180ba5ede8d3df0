"""Where a skill's scripts run: its own folder when local, else a private local copy.

A backend that has the skill in a folder on this machine says so
(:func:`backends.capabilities.local_folder`: a local folder, or a composite whose owning member
is one); scripts then run in place.

A skill from remote storage is copied once per version - the catalog's fingerprint of its
SKILL.md plus its file listing - into a private temporary folder; later runs reuse the copy.
A copy that a newer version replaced is deleted as soon as no script runs in it. Copied files
are read-only; scripts (:attr:`backends.FileEntry.executable`: files under ``scripts/`` and
files the storage records as executable) are also executable, so a script that runs a sibling
by path works from a bucket as it does from a folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from backends.capabilities import local_folder
from backends.errors import ResourceNotFoundError, UnsafePathError
from backends.limits import too_large
from backends.paths import SKILL_MD_NAMES, check_relative_path, is_within
from skills_core.catalog.catalog import SkillCatalog
from skills_core.format.models import Skill

_PARALLEL_READS = 8
_READ_ONLY = 0o444
_EXECUTABLE = 0o555


@dataclass(slots=True)
class _Copy:
    key: tuple[object, ...]
    path: str
    users: int = 0
    stale: bool = False


class Workspaces:
    """Hands out the folder each script runs in.

    Args:
        catalog: The catalog whose skills run.
    """

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog
        self._copies: dict[str, _Copy] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    @asynccontextmanager
    async def script(
        self, name: str, skill: Skill, relative: str, *, max_bytes: int
    ) -> AsyncIterator[tuple[str, str]]:
        """Yield ``(folder, script path)`` for running ``relative`` of the skill ``name``.

        ``max_bytes`` bounds the total size of a remote skill copied to run locally.

        Raises:
            UnsafePathError: The script resolves outside the skill folder.
            ResourceNotFoundError: The script is not a regular file.
            LimitExceededError: A remote skill is too large to copy.
        """
        folder = await local_folder(self._catalog.backend, self._catalog.folder(name))
        if folder is not None:
            yield await asyncio.to_thread(_confined_script, folder, relative)
            return
        copy = await self._current_copy(name, skill, max_bytes)
        copy.users += 1
        try:
            yield copy.path, os.path.join(copy.path, *relative.split("/"))
        finally:
            copy.users -= 1
            if copy.stale and not copy.users:
                await asyncio.to_thread(shutil.rmtree, copy.path, True)

    async def close(self) -> None:
        """Delete every copy."""
        copies, self._copies = list(self._copies.values()), {}
        await asyncio.to_thread(_remove_all, [copy.path for copy in copies])

    async def _current_copy(self, name: str, skill: Skill, max_bytes: int) -> _Copy:
        entry = self._catalog.snapshot.loaded.get(name)
        key = (entry.fingerprint if entry else None, skill.files)
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            current = self._copies.get(name)
            if current is not None and current.key == key:
                return current
            files = await self._read_all(name, skill, max_bytes)
            executables = {entry.path for entry in skill.files if entry.executable}
            fresh = _Copy(key, await asyncio.to_thread(_materialise, name, files, executables))
            self._copies[name] = fresh
            if current is not None:
                current.stale = True
                if not current.users:
                    await asyncio.to_thread(shutil.rmtree, current.path, True)
            return fresh

    async def _read_all(self, name: str, skill: Skill, max_bytes: int) -> dict[str, bytes]:
        total = sum(entry.size for entry in skill.files)
        if total > max_bytes:
            raise too_large(
                "skill (copied to run its scripts)", total, max_bytes, location=skill.location
            )
        gate = asyncio.Semaphore(_PARALLEL_READS)

        async def read(path: str) -> bytes:
            if path == skill_md:  # the catalog holds the bytes it served: no second download
                return await self._catalog.read_skill_md(name)
            async with gate:
                return await self._catalog.read_resource(name, path)

        paths = [entry.path for entry in skill.files]
        skill_md = next((md for md in SKILL_MD_NAMES if md in paths), None)
        contents = await asyncio.gather(*(read(path) for path in paths))
        return dict(zip(paths, contents, strict=True))


def _confined_script(folder: str, relative: str) -> tuple[str, str]:
    real_folder = os.path.realpath(folder)
    script = os.path.realpath(os.path.join(real_folder, *relative.split("/")))
    if not is_within(real_folder, script):
        raise UnsafePathError("script resolves outside the skill folder", location=script)
    if not os.path.isfile(script):
        raise ResourceNotFoundError("script is not a regular file", location=script)
    return real_folder, script


def _materialise(name: str, files: Mapping[str, bytes], executables: Collection[str]) -> str:
    root = tempfile.mkdtemp(prefix=f"skillfs-{name}-")  # private: mode 0700
    try:
        for relative, data in files.items():
            parts = check_relative_path(relative).split("/")
            target = os.path.join(root, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "xb") as handle:
                handle.write(data)
            os.chmod(target, _EXECUTABLE if relative in executables else _READ_ONLY)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return root


def _remove_all(paths: Sequence[str]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
