"""Checks that keep skill names and resource paths inside their skill folder.

Every backend runs names and paths through these before touching storage, so a hostile
``../..``, an absolute or drive path, a backslash or a NUL byte is refused the same way
everywhere.
"""

from __future__ import annotations

import os
import re

from backends.errors import UnsafePathError

SKILL_MD_NAMES = ("SKILL.md", "skill.md")
"""File names that make a folder a skill, in order of preference."""

_DRIVE = re.compile(r"^[A-Za-z]:")


def check_skill_name(name: str) -> str:
    """Return ``name`` if it is a plain, visible folder name.

    Raises:
        UnsafePathError: Empty, hidden, ``.``/``..``, or holding a separator or NUL.
    """
    if (
        not name
        or name[0] == "."
        or "/" in name
        or "\\" in name
        or "\x00" in name
        or (":" in name and _DRIVE.match(name))
    ):
        raise UnsafePathError(f"not a skill folder name: {name!r}")
    return name


def check_relative_path(path: str) -> str:
    """Normalise a resource path to POSIX form relative to its skill folder.

    ``./a//b`` becomes ``a/b``. Anything that could point outside the folder is refused.

    Raises:
        UnsafePathError: Empty, absolute, drive-qualified, backslashed, with ``..`` or NUL.
    """
    if not path or "\x00" in path or "\\" in path:
        raise UnsafePathError(f"unsafe resource path: {path!r}")
    if path.startswith("/") or _DRIVE.match(path):
        raise UnsafePathError(f"resource path must be relative: {path!r}")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(f"resource path must stay inside the skill: {path!r}")
    return "/".join(parts)


def is_hidden(relative_path: str) -> bool:
    """True when a component of a relative POSIX path starts with a dot or is ``__pycache__``.

    Bytecode caches are never part of a skill: pip writes one next to every script a
    package ships, and running a script's tests leaves one behind.
    """
    return any(part.startswith(".") or part == "__pycache__" for part in relative_path.split("/"))


def check_resource_path(path: str, *, location: str) -> str:
    """Normalise a path a caller asks to read; hidden files are never served.

    Raises:
        UnsafePathError: As for :func:`check_relative_path`, or the path is hidden.
    """
    relative = check_relative_path(path)
    if is_hidden(relative):
        raise UnsafePathError(f"hidden files are not served: {path!r}", location=location)
    return relative


def is_within(real_root: str, real_path: str) -> bool:
    """True when the resolved ``real_path`` is ``real_root`` or lies below it."""
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)
