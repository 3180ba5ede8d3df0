"""Checks that keep skill names and resource paths inside their skill folder.

Every backend refuses ``..``, absolute or drive paths, backslashes and control characters
(which could forge a line of output) the same way, before touching storage.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection

from backends._errors import UnsafePathError, echoed

SKILL_MD_NAMES = ("SKILL.md", "skill.md")  # in order of preference

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def skill_md_name(file_names: Collection[str]) -> str | None:
    """Which of a folder's file names is its SKILL.md (``SKILL.md`` before ``skill.md``)."""
    return next((name for name in SKILL_MD_NAMES if name in file_names), None)


def check_skill_name(name: str) -> str:
    """Return ``name`` if it is a plain, visible folder name; else UnsafePathError."""
    if (
        not name
        or name[0] == "."
        or "/" in name
        or "\\" in name
        or _CONTROL.search(name)
        or (":" in name and _DRIVE.match(name))
    ):
        raise UnsafePathError(f"not a skill folder name: {echoed(name)!r}")
    return name


def passes(check: Callable[[str], object], value: str) -> bool:
    """True when ``check`` (a checker of this module) accepts ``value``."""
    try:
        check(value)
    except UnsafePathError:
        return False
    return True


def is_skill_name(name: str) -> bool:
    """True when :func:`check_skill_name` accepts ``name``."""
    return passes(check_skill_name, name)


def check_file_name(name: str, *, location: str | None = None) -> str:
    """Return ``name`` (as storage lists it) unless it holds a control character."""
    if _CONTROL.search(name):
        raise UnsafePathError(
            f"control character in a file name: {echoed(name)!r}", location=location
        )
    return name


def check_relative_path(path: str) -> str:
    """Normalise a resource path to POSIX form (``./a//b`` -> ``a/b``) inside its skill.

    Raises:
        UnsafePathError: Empty, absolute, drive-qualified, backslashed, with ``..`` or a control
            character.
    """
    check_file_name(path)
    if not path or "\\" in path:
        raise UnsafePathError(f"unsafe resource path: {echoed(path)!r}")
    if path.startswith("/") or _DRIVE.match(path):
        raise UnsafePathError(f"resource path must be relative: {echoed(path)!r}")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(f"resource path must stay inside the skill: {echoed(path)!r}")
    return "/".join(parts)


VCS_FOLDERS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", "CVS"})
OS_JUNK = frozenset(  # compared lowercased; AppleDouble ``._*`` files too
    {".ds_store", "thumbs.db", "ehthumbs.db", "desktop.ini", "__macosx", ".spotlight-v100"}
)
CACHES = frozenset(  # and *.pyc bytecode
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".ipynb_checkpoints"}
)
SECRETS = frozenset({".env", ".netrc", ".npmrc", ".pypirc", ".git-credentials"})  # and .env.*
ENV_TEMPLATES = frozenset({"example", "sample", "template", "dist", "defaults"})  # served

_BYTECODE = (".pyc", ".pyo")


def is_hidden_name(name: str) -> bool:
    """True when one file or folder name is never served: see :func:`is_hidden`."""
    if name in CACHES or name in VCS_FOLDERS or name in SECRETS:
        return True
    if name.lower() in OS_JUNK or name.startswith("._") or name.endswith(_BYTECODE):
        return True
    return name.startswith(".env.") and name[5:].lower() not in ENV_TEMPLATES


def is_hidden(relative_path: str) -> bool:
    """True for a path in or of version control, OS junk, caches or secrets (never served)."""
    return any(is_hidden_name(part) for part in relative_path.split("/"))


def check_resource_path(path: str, *, location: str) -> str:
    """:func:`check_relative_path`, refusing hidden files (:func:`is_hidden`) too."""
    relative = check_relative_path(path)
    if is_hidden(relative):
        reason = "version control, OS junk, caches and secrets are never served"
        raise UnsafePathError(f"hidden file {echoed(path)!r}: {reason}", location=location)
    return relative


def is_within(real_root: str, real_path: str) -> bool:
    """True when the resolved ``real_path`` is ``real_root`` or lies below it."""
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)
