"""Where the persistent catalog cache lives, and whether a file there may be trusted.

The folder is ``$SKILLFS_CACHE_DIR``, else ``$XDG_CACHE_HOME/skillfs``, else
``~/.cache/skillfs``; skillfs creates it with mode 0700. A folder or file that is not the
user's own, is writable by others, or is not what it should be (a symlink, a directory where a
file should be) is never trusted. Blocking: call these from a worker thread.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

CACHE_DIR_VARIABLE = "SKILLFS_CACHE_DIR"
"""The environment variable that moves the cache folder."""

_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


def default_cache_folder() -> Path:
    """The cache folder the environment names (see the module docstring)."""
    moved = os.environ.get(CACHE_DIR_VARIABLE)
    if moved:
        return Path(moved)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "skillfs"


def ensure_folder(folder: Path) -> str | None:
    """Create ``folder`` (mode 0700) if needed; why it cannot be trusted, or ``None``."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        return f"cannot create the cache folder: {exc.strerror or exc}"
    if not stat.S_ISDIR(info.st_mode):
        return "the cache folder is not a directory"
    return _untrusted(info, "the cache folder")


def untrusted_file(path: Path) -> str | None:
    """Why the existing file at ``path`` cannot be trusted, or ``None`` (also when absent)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return f"{path.name} is not a regular file"
    return _untrusted(info, path.name)


def _untrusted(info: os.stat_result, what: str) -> str | None:
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"{what} is owned by another user"
    if info.st_mode & _WRITABLE_BY_OTHERS:
        return f"{what} is writable by other users"
    return None
