"""Where the skills are when a source holds none: hidden or nested folders with a SKILL.md.

Collections keep skills where a skills root does not look: openai/skills has every skill in
``skills/.curated``, ``skills/.experimental`` and ``skills/.system``; many repositories keep
them one level down (``skills/<name>``). A command pointed at such a root finds no skill, and
says where they are instead of only "no skills found".
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from backends.base import Backend
from backends.errors import StorageError
from backends.local import LocalBackend
from backends.paths import skill_md_name

MAX_DEPTH = 4
"""Folder levels below a local root searched for SKILL.md files."""

MAX_FOLDERS = 10_000
"""Most local folders looked at: a search never walks a whole disk."""

SHOWN = 5
"""Most places named in one hint."""

_NEVER_SEARCHED = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})


@runtime_checkable
class ElsewhereFinder(Protocol):
    """A backend that knows, from its listing, which skipped folders hold a SKILL.md."""

    async def skill_folders_elsewhere(self) -> Sequence[str]:
        """Folders relative to the root holding a SKILL.md that is no skill there."""


async def skill_folders_elsewhere(backend: Backend) -> Sequence[str]:
    """Folders of ``backend`` (relative to its root) that hold a SKILL.md but are no skill.

    A local folder is searched (in a worker thread); other backends answer from their last
    listing, or have nothing to say.
    """
    if isinstance(backend, LocalBackend):
        return await asyncio.to_thread(search_folder, backend.root)
    if isinstance(backend, ElsewhereFinder):
        try:
            return await backend.skill_folders_elsewhere()
        except StorageError:
            return ()
    return ()


def search_folder(root: Path) -> list[str]:
    """Folders below ``root`` holding a SKILL.md, hidden ones included (blocking).

    Breadth first, at most :data:`MAX_DEPTH` levels and :data:`MAX_FOLDERS` folders; symlinks
    and VCS, dependency and cache folders are not entered.
    """
    found: list[str] = []
    level = [(root, "")]
    visited = 0
    for _ in range(MAX_DEPTH):
        below: list[tuple[Path, str]] = []
        for folder, relative in level:
            visited += 1
            if visited > MAX_FOLDERS:
                return sorted(found)
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            names = {entry.name for entry in entries}
            if relative and skill_md_name(names):
                found.append(relative)
            below += [
                (Path(entry.path), f"{relative}/{entry.name}".lstrip("/"))
                for entry in entries
                if entry.name not in _NEVER_SEARCHED and entry.is_dir(follow_symlinks=False)
            ]
        level = below
    return sorted(found)


def elsewhere_hint(location: str, folders: Sequence[str]) -> str:
    """One sentence naming where the skills are, grouped by the folder that holds them."""
    if "" in folders:
        return "this folder is a skill itself: point at the folder that holds it"
    places = Counter(folder.rpartition("/")[0] or folder for folder in folders)
    base = location.rstrip("/")
    shown = [
        f"{base}/{place} ({count} skill{'' if count == 1 else 's'})"
        for place, count in sorted(places.items())[:SHOWN]
    ]
    more = len(places) - SHOWN
    if more > 0:
        shown.append(f"and {more} more")
    return (
        "SKILL.md files sit in hidden or nested folders, which are not searched: "
        f"{', '.join(shown)}; point skillfs at one of them"
    )
