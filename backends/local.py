"""Skills in a local folder: ``<root>/<name>/SKILL.md``, first level only.

Every filesystem call runs off the event loop, batched: a listing is one thread hop, and
fetching many SKILL.md files is one hop per chunk, never one per file. A SKILL.md or resource
that is not a regular file (a FIFO, a device, a socket, a directory) is refused with what it
is, never read (see :mod:`backends.local_files`); every ``OSError`` becomes a storage error
with its location.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from backends.base import FileEntry, SkillDocument, SkillRef
from backends.capabilities import FetchResult, ListedDocument
from backends.errors import (
    SkillNotFoundError,
    StorageError,
    UnsafePathError,
)
from backends.folder_events import folder_events, watchable
from backends.limits import DEFAULT_LIMITS, check_size
from backends.local_files import (
    NOT_FOUND,
    OPEN_FLAGS,
    NotRegularFileError,
    fingerprint,
    holds_skill_md,
    not_regular,
    open_error,
    open_regular,
    read_at_most,
    read_fd,
    resource_error,
    walk_files,
)
from backends.paths import (
    SKILL_MD_NAMES,
    check_resource_path,
    check_skill_name,
    is_within,
)
from backends.resource import AsyncResource

_READ_CHUNK = 1024
_FILE_TYPE, _REGULAR = stat.S_IFMT(0o177777), stat.S_IFREG


class LocalBackend(AsyncResource):
    """A folder whose first-level subfolders are skills.

    Args:
        root: The folder holding the skill folders.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        path = os.fspath(root)
        # normpath is pure string work; only a relative path needs the (cached, in-kernel) cwd.
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
        """List the skills with one listdir and one lstat per SKILL.md, in one thread hop."""
        return await asyncio.to_thread(self._scan)

    async def list_named(self, names: Sequence[str]) -> Sequence[SkillRef]:
        """The listing narrowed to ``names``, without listing the root: one lstat per SKILL.md."""
        return await asyncio.to_thread(self._stat_skills, names)

    async def list_documents(self, *, max_bytes: int) -> Sequence[ListedDocument]:
        """List the skills and read every SKILL.md of up to ``max_bytes``, in one thread hop.

        What a first load needs: one open and fstat per SKILL.md instead of an lstat for the
        listing and another open and fstat for the read.
        """
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
        return await asyncio.to_thread(self._walk, name)

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

    # -- blocking helpers, only ever called through asyncio.to_thread ---------------------

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
        """The ref of one skill folder; ``known`` itself when nothing changed since it was made.

        Handing back the same ref spares a no-change listing 10,000 new records (and the
        garbage collector the work of tracking them).
        """
        odd: SkillRef | None = None  # a SKILL.md that is not a file, unless the other name is
        for file_name in SKILL_MD_NAMES:
            path = folder + os.sep + file_name
            try:
                st = os.lstat(path)
                if st.st_mode & _FILE_TYPE != _REGULAR and stat.S_ISLNK(st.st_mode):
                    self._check_link(folder, path)
                    st = os.stat(path)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except UnsafePathError as exc:
                return _refused(name, path, exc)
            except OSError as exc:
                return _refused(name, path, StorageError(f"cannot stat: {exc.strerror}"))
            if st.st_mode & _FILE_TYPE != _REGULAR:
                odd = odd or _refused(name, path, not_regular(file_name, st.st_mode, location=path))
                continue
            token = fingerprint(st)
            if known is not None and known.fingerprint == token and known.location == path:
                return known
            try:
                check_skill_name(name)
            except UnsafePathError as exc:
                return _refused(name, path, exc)
            return SkillRef(name, token, path, st.st_size)  # positional: half the cost
        return odd

    def _check_link(self, folder: str, path: str) -> str:
        real = os.path.realpath(path)
        if not is_within(os.path.realpath(folder), real):
            raise UnsafePathError("symlink leaves the skill folder", location=path)
        return real

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
        opened = self._open_skill_md(folder)
        if opened is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._root)
        return _read_opened(name, *opened)

    def _read_listing(self, max_bytes: int) -> Sequence[ListedDocument]:
        prefix = self._root + os.sep
        listed: list[ListedDocument] = []
        for name in self._names():
            if name[0] != ".":  # a plain file in the root has no SKILL.md below it: not a skill
                item = self._read_listed(prefix + name, name, max_bytes)
                if item is not None:
                    listed.append(item)
        return listed

    def _read_listed(self, folder: str, name: str, max_bytes: int) -> ListedDocument | None:
        """One skill of a listing, read; a ref with the reason when it cannot be."""
        try:
            opened = self._open_skill_md(folder)
        except StorageError as exc:
            return _refused(name, exc.location or folder, exc)
        if opened is None:
            return None
        fd, path, st = opened
        try:
            check_skill_name(name)
            check_size(st.st_size, max_bytes, location=path, what="SKILL.md")
        except StorageError as exc:
            os.close(fd)
            return _unreadable(name, path, st, exc)
        try:
            return _read_opened(name, fd, path, st)  # closes fd
        except StorageError as exc:
            return _unreadable(name, path, st, exc)

    def _open_skill_md(self, folder: str) -> tuple[int, str, os.stat_result] | None:
        """Open a folder's SKILL.md (or skill.md), confined; ``None`` when it has neither.

        Opened without blocking and checked before any read: a SKILL.md that is a FIFO, a
        device or a directory is refused with what it is.

        Raises:
            StorageError: It cannot be opened, or is not a regular file.
        """
        odd: StorageError | None = None
        for file_name in SKILL_MD_NAMES:
            path = folder + os.sep + file_name
            try:
                fd = self._open_confined(folder, path)
            except OSError as exc:
                if exc.errno in NOT_FOUND:
                    continue
                raise open_error(file_name, exc, location=path) from exc
            try:
                st = os.fstat(fd)
            except OSError as exc:
                os.close(fd)
                raise StorageError(f"cannot stat: {exc.strerror}", location=path) from exc
            if st.st_mode & _FILE_TYPE == _REGULAR:
                return fd, path, st
            os.close(fd)
            odd = odd or not_regular(file_name, st.st_mode, location=path)
        if odd is not None:
            raise odd
        return None

    def _open_confined(self, folder: str, path: str) -> int:
        try:
            return os.open(path, OPEN_FLAGS)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
        return os.open(self._check_link(folder, path), OPEN_FLAGS)

    def _skill_folder(self, name: str) -> str:
        folder = os.path.join(self._root, check_skill_name(name))
        if not holds_skill_md(folder):
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._root)
        return os.path.realpath(folder)

    def _walk(self, name: str) -> Sequence[FileEntry]:
        return walk_files(self._skill_folder(name))

    def _read_resource(self, name: str, relative: str, max_bytes: int) -> bytes:
        target = self._resolve_resource(name, relative, max_bytes)
        location = os.path.join(self._root, name, relative)
        try:
            fd = open_regular(target)
            try:
                data = read_at_most(fd, max_bytes + 1)
            finally:
                os.close(fd)
        except OSError as exc:
            raise resource_error(exc, location=location) from exc
        check_size(len(data), max_bytes, location=location)
        return data

    def _resolve_resource(self, name: str, relative: str, max_bytes: int) -> str:
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
        check_size(st.st_size, max_bytes, location=location)
        return target


def _refused(name: str, path: str, error: StorageError) -> SkillRef:
    error.location = error.location or path
    return SkillRef(name, f"refused:{error.message}", path, error=error)


def _unreadable(name: str, path: str, st: os.stat_result, error: StorageError) -> SkillRef:
    error.location = error.location or path
    return SkillRef(name, fingerprint(st), path, size=st.st_size, error=error)


def _read_opened(name: str, fd: int, path: str, st: os.stat_result) -> SkillDocument:
    """Read an open SKILL.md and close it."""
    try:
        data = read_fd(fd, st.st_size)
    except OSError as exc:
        raise StorageError(f"cannot read: {exc.strerror}", location=path) from exc
    finally:
        os.close(fd)
    return SkillDocument(name, data, fingerprint(st), path)
