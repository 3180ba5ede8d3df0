"""Skills in a local folder: ``<root>/<name>/SKILL.md``, first level only.

Filesystem calls run off the event loop, batched (a listing is one thread hop). A SKILL.md is
found one way (:func:`find_skill_md`); one that is not a regular file is refused unread.
Change signals come from filesystem events (``agent-skillfs[watch]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import importlib.util
import os
import stat
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from backends._base import AsyncResource, FileEntry, SkillDocument, SkillRef
from backends._errors import SkillNotFoundError, StorageError, UnsafePathError
from backends._limits import DEFAULT_LIMITS, check_size
from backends._local_files import (
    NOT_FOUND,
    OPEN_FLAGS,
    NotRegularFileError,
    fingerprint,
    not_regular,
    open_error,
    read_fd,
    read_limited,
    resource_error,
    walk_files,
)
from backends._paths import (
    SKILL_MD_NAMES,
    check_resource_path,
    check_skill_name,
    is_skill_name,
    is_within,
)
from backends.capabilities import FetchResult, ListedDocument

_READ_CHUNK = 1024
_FILE_TYPE, _REGULAR = stat.S_IFMT(0o177777), stat.S_IFREG
_DEBOUNCE_MS = 200
_WAKE_MS = 1000

Found = tuple[str, os.stat_result | StorageError]  # a SKILL.md's path, and its stat or refusal


def find_skill_md(folder: str) -> Found | None:
    """The folder's SKILL.md (``SKILL.md`` before ``skill.md``), or ``None`` (blocking).

    A regular file wins; a link leaving the folder, or a failed stat, gives the refusal.
    """
    odd: Found | None = None
    for file_name in SKILL_MD_NAMES:
        path = folder + os.sep + file_name
        try:
            st = os.lstat(path)
            if st.st_mode & _FILE_TYPE != _REGULAR and stat.S_ISLNK(st.st_mode):
                _confined(folder, path)
                st = os.stat(path)
        except UnsafePathError as exc:
            return path, exc
        except OSError as exc:
            if exc.errno in NOT_FOUND:
                continue
            return path, StorageError(f"cannot stat: {exc.strerror}")
        if st.st_mode & _FILE_TYPE == _REGULAR:
            return path, st
        odd = odd or (path, st)
    return odd


def holds_skill(found: Found | None) -> bool:
    """True when a folder's SKILL.md is a regular file (or a link leaving it: refused later)."""
    if found is None:
        return False
    st = found[1]
    return isinstance(st, UnsafePathError) or (not isinstance(st, StorageError) and _regular(st))


def open_skill_folder(path: str | os.PathLike[str]) -> OneSkill | None:
    """The skill in ``path`` (a skill's folder or its SKILL.md), or ``None`` (blocking)."""
    folder = Path(path)
    if folder.name in SKILL_MD_NAMES and os.path.isfile(folder):
        folder = folder.parent
    if not (folder.name and holds_skill(find_skill_md(str(folder)))):
        return None
    return OneSkill(folder)


class LocalBackend(AsyncResource):
    """The folder ``root``, whose first-level subfolders are skills."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        path = os.fspath(root)
        self._root = os.path.normpath(path) if os.path.isabs(path) else os.path.abspath(path)
        self._listed: dict[str, SkillRef] = {}  # the last listing, by name

    def __repr__(self) -> str:
        return f"LocalBackend({self._root!r})"

    @property
    def location(self) -> str:
        """The absolute path of the root folder."""
        return self._root

    @property
    def root(self) -> Path:
        """The root folder as a :class:`~pathlib.Path`."""
        return Path(self._root)

    async def list(self) -> Sequence[SkillRef]:
        """List the skills: one listdir and one lstat per SKILL.md, in one thread hop."""
        return await asyncio.to_thread(self._scan)

    async def list_named(self, names: Sequence[str]) -> Sequence[SkillRef]:
        """The listing narrowed to ``names``, without listing the root."""
        return await asyncio.to_thread(self._stat_skills, names)

    async def list_documents(self, *, max_bytes: int) -> Sequence[ListedDocument]:
        """List the skills and read every SKILL.md of up to ``max_bytes``, in one thread hop."""
        return await asyncio.to_thread(self._read_listing, max_bytes)

    async def get(self, name: str) -> SkillDocument:
        """Read one SKILL.md."""
        return await asyncio.to_thread(self._read_document, name)

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Read many SKILL.md files, one thread hop per chunk of names."""
        results: list[FetchResult] = []
        for start in range(0, len(names), _READ_CHUNK):
            chunk = names[start : start + _READ_CHUNK]
            results.extend(await asyncio.to_thread(self._read_documents, chunk))
        return results

    async def files(self, name: str) -> Sequence[FileEntry]:
        """List a skill's files; symlinks that leave the folder and hidden files are skipped."""
        return await asyncio.to_thread(lambda: walk_files(self._skill_folder(name)))

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read one file of a skill after resolving it inside the skill folder (one thread hop)."""
        relative = check_resource_path(path, location=os.path.join(self._root, name))
        return await asyncio.to_thread(self._read_resource, name, relative, max_bytes)

    async def aclose(self) -> None:
        """Nothing to release: every file is closed after each call."""

    async def local_folder(self, name: str) -> str | None:
        """The skill's folder, resolved (a symlinked skill folder gives its target)."""
        return await asyncio.to_thread(self._skill_folder, name)

    async def change_events(self) -> AsyncIterator[None] | None:
        """Filesystem events below the root; ``None`` without ``agent-skillfs[watch]`` or a root."""
        return folder_events([self._root]) if await watchable([self._root]) else None

    def _names(self) -> Sequence[str]:
        try:
            return sorted(os.listdir(self._root))
        except OSError as exc:
            raise StorageError(
                f"cannot list skills folder: {exc.strerror}", location=self._root
            ) from exc

    def _scan(self) -> Sequence[SkillRef]:
        return self._stat_skills(self._names())

    def _stat_skills(self, names: Sequence[str]) -> Sequence[SkillRef]:
        prefix = self._root + os.sep
        known = self._listed
        refs: list[SkillRef] = []
        for name in names:
            if name[0] != ".":  # a plain file in the root fails the lstat below: not a skill
                ref = self._stat_skill(prefix + name, name, known.get(name))
                if ref is not None:
                    refs.append(ref)
        self._listed = {ref.name: ref for ref in refs}
        return refs

    def _stat_skill(self, folder: str, name: str, known: SkillRef | None) -> SkillRef | None:
        """The ref of one skill folder; ``known`` itself when unchanged (no new record)."""
        found = find_skill_md(folder)
        if found is None:
            return None
        path, st = found
        refusal = _refusal(found, folder, name, check_name=False)
        if refusal is not None:
            return refusal
        assert isinstance(st, os.stat_result)
        token = fingerprint(st)
        if known is not None and known.fingerprint == token and known.location == path:
            return known
        return _refusal(found, folder, name) or SkillRef(name, token, path, st.st_size)

    def _read_documents(self, names: Sequence[str]) -> Sequence[FetchResult]:
        results: list[FetchResult] = []
        for name in names:
            try:
                results.append(self._read_document(name))
            except StorageError as exc:
                results.append(exc)
        return results

    def _read_document(self, name: str) -> SkillDocument:
        folder = self._root + os.sep + check_skill_name(name)
        found = find_skill_md(folder)
        if found is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._root)
        refusal = _refusal(found, folder, name, check_name=False)  # the name was checked
        if refusal is not None:
            assert refusal.error is not None
            raise refusal.error
        fd, path, st = self._open_skill_md(folder, name, found[0])
        try:
            return _read_open(name, fd, path, st)
        finally:
            os.close(fd)

    def _read_listing(self, max_bytes: int) -> Sequence[ListedDocument]:
        prefix = self._root + os.sep
        listed: list[ListedDocument] = []
        for name in self._names():
            folder = prefix + name
            path = folder + os.sep + SKILL_MD_NAMES[0]
            opened = None
            if is_skill_name(name):  # the common case, a plain SKILL.md, opened without a stat
                with contextlib.suppress(StorageError):
                    opened = self._open_skill_md(folder, name, path)
            if opened is None:
                found = find_skill_md(folder) if name[0] != "." else None
                if found is None:
                    continue
                refusal = _refusal(found, folder, name)
                if refusal is not None:
                    listed.append(refusal)
                    continue
                path, st = found
            try:
                fd, path, st = opened or self._open_skill_md(folder, name, path)
                try:
                    check_size(st.st_size, max_bytes, location=path, what="SKILL.md")
                    listed.append(_read_open(name, fd, path, st))
                finally:
                    os.close(fd)
            except StorageError as exc:
                assert isinstance(st, os.stat_result)
                exc.location = exc.location or path
                listed.append(SkillRef(name, fingerprint(st), path, st.st_size, exc))
        return listed

    def _open_skill_md(self, folder: str, name: str, path: str) -> tuple[int, str, os.stat_result]:
        """The SKILL.md at ``path``, opened if a regular file (the caller closes it)."""
        try:
            fd = self._open_confined(folder, path)
        except OSError as exc:
            if exc.errno in NOT_FOUND:
                raise SkillNotFoundError(f"no skill named {name!r}", location=path) from exc
            raise open_error(path[len(folder) + 1 :], exc, location=path) from exc
        try:
            st = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            raise StorageError(f"cannot read: {exc.strerror}", location=path) from exc
        if not _regular(st):
            os.close(fd)
            raise not_regular(path[len(folder) + 1 :], st.st_mode, location=path)
        return fd, path, st

    def _open_confined(self, folder: str, path: str) -> int:
        try:
            return os.open(path, OPEN_FLAGS)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
        return os.open(_confined(folder, path), OPEN_FLAGS)

    def _skill_folder(self, name: str) -> str:
        folder = os.path.join(self._root, check_skill_name(name))
        if not holds_skill(find_skill_md(folder)):
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._root)
        return os.path.realpath(folder)

    def _read_resource(self, name: str, relative: str, max_bytes: int) -> bytes:
        real_folder = self._skill_folder(name)
        location = os.path.join(self._root, name, relative)
        target = os.path.realpath(os.path.join(real_folder, relative))
        if not is_within(real_folder, target):
            raise UnsafePathError("path leaves the skill folder", location=location)
        try:
            st = os.stat(target)
        except OSError as exc:
            raise resource_error(exc, location=location) from exc
        if st.st_mode & _FILE_TYPE != _REGULAR:
            raise resource_error(NotRegularFileError(st.st_mode), location=location)
        try:
            return read_limited(target, max_bytes, location=location)
        except OSError as exc:
            raise resource_error(exc, location=location) from exc


def _refusal(found: Found, folder: str, name: str, *, check_name: bool = True) -> SkillRef | None:
    path, st = found
    if isinstance(st, StorageError):
        return _refused(name, path, st)
    if not _regular(st):
        return _refused(name, path, not_regular(path[len(folder) + 1 :], st.st_mode, location=path))
    if check_name:
        try:
            check_skill_name(name)
        except UnsafePathError as exc:
            return _refused(name, path, exc)
    return None


def _read_open(name: str, fd: int, path: str, st: os.stat_result) -> SkillDocument:
    """The SKILL.md open as ``fd`` (the caller closes it)."""
    try:
        data = read_fd(fd, st.st_size)
    except OSError as exc:
        raise StorageError(f"cannot read: {exc.strerror}", location=path) from exc
    return SkillDocument(name, data, fingerprint(st), path)


def _refused(name: str, path: str, error: StorageError) -> SkillRef:
    error.location = error.location or path
    return SkillRef(name, f"refused:{error.message}", path, error=error)


def _regular(st: os.stat_result) -> bool:
    return st.st_mode & _FILE_TYPE == _REGULAR


def _confined(folder: str, path: str) -> str:
    real = os.path.realpath(path)
    if not is_within(os.path.realpath(folder), real):
        raise UnsafePathError("symlink leaves the skill folder", location=path)
    return real


async def watchable(folders: Sequence[str]) -> bool:
    """True when watchfiles is installed and every folder exists."""
    return importlib.util.find_spec("watchfiles") is not None and await asyncio.to_thread(
        lambda: all(os.path.isdir(folder) for folder in folders)
    )


async def folder_events(folders: Sequence[str]) -> AsyncIterator[None]:
    """Yield once when the watch is running, then once per burst of changes below ``folders``."""
    from watchfiles import awatch

    stop = asyncio.Event()
    started = False
    try:
        async for changes in awatch(
            *folders,
            debounce=_DEBOUNCE_MS,
            watch_filter=None,
            stop_event=stop,
            rust_timeout=_WAKE_MS,
            yield_on_timeout=True,
        ):
            if changes or not started:
                started = True
                yield None
    finally:
        stop.set()


class OneSkill(AsyncResource):
    """A local folder's one skill, as a backend: the folder holding it is never listed.

    It reads what :class:`LocalBackend` reads, but neither in one pass nor by batch.
    """

    def __init__(self, folder: Path) -> None:
        self._backend = LocalBackend(folder.parent)
        self._name = folder.name
        self.location = str(folder)

    async def list(self) -> Sequence[SkillRef]:
        """The one skill's listing."""
        return await self._backend.list_named([self._name])

    async def get(self, name: str) -> SkillDocument:
        """As :meth:`LocalBackend.get`."""
        return await self._backend.get(name)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """As :meth:`LocalBackend.files`."""
        return await self._backend.files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """As :meth:`LocalBackend.read`."""
        return await self._backend.read(name, path, max_bytes=max_bytes)

    async def aclose(self) -> None:
        """Nothing to release."""

    async def local_folder(self, name: str) -> str | None:
        """As :meth:`LocalBackend.local_folder`: the skill runs its scripts in place."""
        return await self._backend.local_folder(name)
