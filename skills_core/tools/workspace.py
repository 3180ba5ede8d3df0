"""Where a skill's scripts run: its own folder when local, else a private local copy.

A backend that has the skill in a folder on this machine says so
(:func:`backends.capabilities.local_folder`: a local folder, or a composite whose owning member
is one); scripts then run in place, unless the run is checked. Checked runs always run from a
private copy, so what was checked is what runs, whatever happens to the source meanwhile:

- a locked skill's copy is made of files checked against the lock as they are read, so a
  script swapped in its folder after the lock is refused before anything runs;
- a run that needs the user's approval (``digested``) gets a copy of its own, made for that
  run, whose :attr:`Workspace.digest` is computed over the very bytes copied
  (:func:`backends.digests.files_digest`): the caller checks that digest and runs the copy.

A skill from remote storage is copied once per version - the catalog's fingerprint of its
SKILL.md plus its file listing - into a private temporary folder; later runs reuse the copy.
A copy that a newer version replaced is deleted as soon as no script runs in it; every copy is
deleted by :meth:`Workspaces.close`, or when the workspaces are dropped (with their catalog's
tools: a service making a catalog per user keeps no user's copies). Copied files
are read-only; scripts (:attr:`backends.FileEntry.executable`: files under ``scripts/`` and
files the storage records as executable) are also executable, so a script that runs a sibling
by path works from a bucket as it does from a folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import NamedTuple

import aiofiles

from backends.base import FileEntry
from backends.capabilities import local_folder
from backends.digests import digest_off_loop, files_digest
from backends.errors import ResourceNotFoundError, UnsafePathError
from backends.limits import too_large
from backends.paths import check_relative_path, is_within, skill_md_name
from skills_core.catalog.catalog import SkillCatalog
from skills_core.format.models import Skill

_PARALLEL_READS = 8
_READ_ONLY = 0o444
_EXECUTABLE = 0o555


class Workspace(NamedTuple):
    """Where one script runs.

    Attributes:
        folder: The skill's folder, or its private copy.
        script: The script's path in it.
        digest: The content digest of the copied files (a ``digested`` run), else ``None``.
    """

    folder: str
    script: str
    digest: str | None = None


@dataclass(slots=True)
class _Copy:
    key: tuple[object, ...]
    path: str
    digest: str | None = None
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
        weakref.finalize(self, _discard, self._copies)

    @asynccontextmanager
    async def script(
        self, name: str, skill: Skill, relative: str, *, max_bytes: int, digested: bool = False
    ) -> AsyncIterator[Workspace]:
        """Yield the :class:`Workspace` for running ``relative`` of the skill ``name``.

        ``max_bytes`` bounds the total size of a skill copied to run locally. ``digested``:
        copy the skill for this run alone, and give the digest of the copied bytes.

        Raises:
            UnsafePathError: The script resolves outside the skill folder.
            ResourceNotFoundError: The script is not a regular file.
            LimitExceededError: A remote skill is too large to copy.
        """
        folder = None
        if self._catalog.lock is None and not digested:  # checked runs run from a copy
            folder = await local_folder(self._catalog.backend, self._catalog.folder(name))
        if folder is not None:
            yield Workspace(*await asyncio.to_thread(_confined_script, folder, relative))
            return
        if digested:
            copy = _Copy((), *await self._copy(name, skill, max_bytes, digested=True), stale=True)
        else:
            copy = await self._current_copy(name, skill, max_bytes)
        copy.users += 1
        try:
            yield Workspace(copy.path, os.path.join(copy.path, *relative.split("/")), copy.digest)
        finally:
            copy.users -= 1
            if copy.stale and not copy.users:
                await asyncio.to_thread(shutil.rmtree, copy.path, True)

    async def close(self) -> None:
        """Delete every copy."""
        paths = [copy.path for copy in self._copies.values()]
        self._copies.clear()
        await asyncio.to_thread(_remove_all, paths)

    async def _current_copy(self, name: str, skill: Skill, max_bytes: int) -> _Copy:
        entry = self._catalog.snapshot.loaded.get(name)
        key = (entry.fingerprint if entry else None, skill.files)
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            current = self._copies.get(name)
            if current is not None and current.key == key:
                return current
            fresh = _Copy(key, *await self._copy(name, skill, max_bytes))
            self._copies[name] = fresh
            if current is not None:
                current.stale = True
                if not current.users:
                    await asyncio.to_thread(shutil.rmtree, current.path, True)
            return fresh

    async def _copy(
        self, name: str, skill: Skill, max_bytes: int, *, digested: bool = False
    ) -> tuple[str, str | None]:
        """Copy every file of a skill into a new private folder: the folder, and its digest.

        The digest (of the bytes copied) is computed when ``digested``, else ``None``.

        Each file is written (aiofiles) as soon as it is read, at most ``_PARALLEL_READS`` at
        a time, so a copy never holds more than that many files in memory.
        """
        total = sum(entry.size for entry in skill.files)
        if total > max_bytes:
            raise too_large(
                "skill (copied to run its scripts)", total, max_bytes, location=skill.location
            )
        paths = [check_relative_path(entry.path) for entry in skill.files]
        skill_md = skill_md_name(paths)
        root = await asyncio.to_thread(_make_folders, name, paths)
        gate = asyncio.Semaphore(_PARALLEL_READS)
        digests: dict[str, str] = {}

        async def copy(entry: FileEntry, relative: str) -> None:
            async with gate:
                if relative == skill_md:  # the bytes the catalog served: no second download
                    data = await self._catalog.read_skill_md(name)
                else:
                    data = await self._catalog.read_resource(name, relative)
                if digested:
                    digests[relative] = await digest_off_loop(data)
                mode = _EXECUTABLE if entry.executable else _READ_ONLY
                target = os.path.join(root, *relative.split("/"))
                async with aiofiles.open(target, "xb", opener=_creating(mode)) as handle:
                    await handle.write(data)

        try:
            await asyncio.gather(*map(copy, skill.files, paths))
        except BaseException:
            await asyncio.to_thread(shutil.rmtree, root, True)
            raise
        return root, files_digest(digests) if digested else None


def _confined_script(folder: str, relative: str) -> tuple[str, str]:
    real_folder = os.path.realpath(folder)
    script = os.path.realpath(os.path.join(real_folder, *relative.split("/")))
    if not is_within(real_folder, script):
        raise UnsafePathError("script resolves outside the skill folder", location=script)
    if not os.path.isfile(script):
        raise ResourceNotFoundError("script is not a regular file", location=script)
    return real_folder, script


def _make_folders(name: str, paths: Sequence[str]) -> str:
    """A new private folder (mode 0700) holding the sub-folders ``paths`` need."""
    root = tempfile.mkdtemp(prefix=f"skillfs-{name}-")
    for folder in sorted({os.path.dirname(path) for path in paths} - {""}):
        os.makedirs(os.path.join(root, *folder.split("/")), exist_ok=True)
    return root


def _creating(mode: int) -> Callable[[str, int], int]:
    """An ``open`` opener that creates the file with ``mode`` (read-only files included)."""

    def opener(path: str, flags: int) -> int:
        return os.open(path, flags, mode)

    return opener


def _discard(copies: dict[str, _Copy]) -> None:
    """Delete the copies of dropped workspaces, in a worker thread if an event loop runs here."""
    paths = [copy.path for copy in copies.values()]
    if not paths:
        return
    try:
        asyncio.get_running_loop().run_in_executor(None, _remove_all, paths)
    except RuntimeError:  # no loop runs in this thread, or it is closing
        _remove_all(paths)


def _remove_all(paths: Sequence[str]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
