"""Blocking helpers of :class:`~backends._local.LocalBackend`: open, read, walk and replace.

Only regular files are read: files open with ``O_NONBLOCK`` (a FIFO never waits for a writer),
are checked with ``fstat`` and closed unread unless regular. Call through ``asyncio.to_thread``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Sequence

from backends._base import FileEntry
from backends._errors import ResourceNotFoundError, SkillNotFoundError, StorageError
from backends._limits import check_size
from backends._paths import check_file_name, is_hidden, is_within

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
OPEN_FLAGS = (  # never follow, never wait, never a terminal
    os.O_RDONLY
    | _NOFOLLOW
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
)

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)
NOT_FOUND = (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG)  # "no such file"
_VANISHED = (errno.ENOENT, errno.ENOTDIR)


def fingerprint(st: os.stat_result) -> str:
    """The change token of a local file: mtime, size, inode and ctime (which none can reset)."""
    return f"{st.st_mtime_ns}-{st.st_size}-{st.st_ino}-{st.st_ctime_ns}"


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: ``a named pipe (FIFO)``, ``a directory``..."""
    return next((kind for is_kind, kind in _KINDS if is_kind(mode)), "not a regular file")


def not_regular(what: str, mode: int, *, location: str) -> StorageError:
    """The error for ``what`` (``SKILL.md``, a file) being something other than a file."""
    return StorageError(
        f"{what} is {file_kind(mode)}, not a regular file; not read", location=location
    )


def open_error(what: str, exc: OSError, *, location: str) -> StorageError:
    """Why ``what`` at ``location`` could not be opened; a socket, for one, refuses ``open``."""
    try:
        mode = os.stat(location).st_mode
    except OSError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        return not_regular(what, mode, location=location)
    return StorageError(f"cannot open: {exc.strerror}", location=location)


class NotRegularFileError(OSError):
    """A file opened to be read is not a regular file (raised by :func:`open_regular`)."""

    def __init__(self, mode: int) -> None:
        super().__init__(errno.EINVAL, file_kind(mode))
        self.mode = mode


def open_regular(path: str, flags: int = 0, *, follow_symlinks: bool = False) -> int:
    """Open ``path`` for reading only if it is a regular file (an ``opener`` for ``open()``).

    NotRegularFileError (an OSError) when it is a FIFO, device, socket or directory: closed unread.
    """
    fd = os.open(path, flags | (OPEN_FLAGS & ~_NOFOLLOW if follow_symlinks else OPEN_FLAGS))
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise NotRegularFileError(mode)
    return fd


def read_fd(fd: int, expected_size: int) -> bytes:
    """Everything an open file holds, even when it grew since its size was taken."""
    data = os.read(fd, expected_size + 1)
    if len(data) <= expected_size:
        return data
    parts = [data]
    while chunk := os.read(fd, 1 << 16):
        parts.append(chunk)
    return b"".join(parts)


def read_limited(
    path: str, max_bytes: int, *, location: str, what: str = "file", follow_symlinks: bool = False
) -> bytes:
    """A regular file's bytes; LimitExceededError over ``max_bytes``, by size or as read (blocking).

    OSError when it cannot be opened or read (:class:`NotRegularFileError`: not a regular file).
    """
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        check_size(os.fstat(fd).st_size, max_bytes, location=location, what=what)
        parts: list[bytes] = []
        left = max_bytes + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            parts.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(parts)
    check_size(len(data), max_bytes, location=location, what=what)
    return data


def read_regular_file(path: str | os.PathLike[str], max_bytes: int, *, what: str) -> bytes:
    """:func:`read_limited` for the user's own files (a lock, a key): symlinks are followed.

    FileNotFoundError when there is none; else a StorageError naming ``what`` (``the lock``).
    """
    location = os.fspath(path)
    try:
        return read_limited(location, max_bytes, location=location, what=what, follow_symlinks=True)
    except NotRegularFileError as exc:
        raise not_regular(what, exc.mode, location=location) from exc
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StorageError(f"cannot read {what}: {exc.strerror}", location=location) from exc


_TEMPORARY = re.compile(r"\.skillfs-[0-9a-f]{16}\.tmp")


def is_temporary(name: str) -> bool:
    """True for the name of a :func:`replace_file` temporary."""
    return _TEMPORARY.fullmatch(name) is not None


def replace_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (a flushed ``.skillfs-<hex>.tmp`` renamed over)."""
    folder = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(folder, f".skillfs-{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(descriptor, stat.S_IMODE(os.stat(path).st_mode))
            handle.write(data)
            handle.flush()
            os.fsync(descriptor)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def resource_error(exc: OSError, *, location: str) -> StorageError:
    """Translate an ``OSError`` met while reading a resource, most specific first."""
    if isinstance(exc, NotRegularFileError):
        return ResourceNotFoundError(
            f"{file_kind(exc.mode)}, not a regular file", location=location
        )
    if exc.errno in NOT_FOUND:
        return ResourceNotFoundError("no such file", location=location)
    return StorageError(f"cannot read: {exc.strerror}", location=location)


def walk_files(real_folder: str) -> Sequence[FileEntry]:
    """Every visible regular file below a skill folder (links kept inside it), sorted by path.

    SkillNotFoundError when the folder vanished, UnsafePathError for a control character in a
    visible name, StorageError when a folder cannot be listed.
    """
    found: list[FileEntry] = []
    pending = [""]
    while pending:
        prefix = pending.pop()
        folder = os.path.join(real_folder, prefix)
        try:
            with os.scandir(folder) as iterator:
                entries = list(iterator)
        except OSError as exc:
            if exc.errno not in _VANISHED:
                message = f"cannot list folder: {exc.strerror}"
                raise StorageError(message, location=folder) from exc
            if not prefix:
                raise SkillNotFoundError("skill folder vanished", location=folder) from exc
            continue
        for entry in entries:
            if is_hidden(entry.name):
                continue
            check_file_name(entry.name, location=entry.path)
            relative = f"{prefix}/{entry.name}" if prefix else entry.name
            try:
                is_folder = entry.is_dir(follow_symlinks=False)  # d_type: no system call
            except OSError:
                continue  # gone since the listing
            if is_folder:
                pending.append(relative)
                continue
            st = _regular_file_stat(real_folder, entry)
            if st is not None:
                mode = stat.S_IMODE(st.st_mode)
                found.append(FileEntry(relative, st.st_size, fingerprint(st), mode))
    return sorted(found, key=lambda item: item.path)


def _regular_file_stat(real_folder: str, entry: os.DirEntry[str]) -> os.stat_result | None:
    try:
        if entry.is_symlink() and not is_within(real_folder, os.path.realpath(entry.path)):
            return None
        st = entry.stat()
    except OSError:
        return None  # gone, or unreadable: not a file the skill can serve
    return st if stat.S_ISREG(st.st_mode) else None
