"""One local skill folder as a backend whose listing holds that skill alone."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from backends.base import FileEntry, SkillDocument, SkillRef
from backends.limits import DEFAULT_LIMITS
from backends.local import LocalBackend
from backends.local_files import holds_skill_md
from backends.paths import SKILL_MD_NAMES
from backends.resource import AsyncResource


def open_skill_folder(path: str | os.PathLike[str]) -> OneSkill | None:
    """The skill in ``path`` (a skill's folder or its SKILL.md), or ``None`` when it holds none.

    Checks the filesystem, so call it outside the event loop.
    """
    folder = Path(path)
    if folder.name in SKILL_MD_NAMES and os.path.isfile(folder):
        folder = folder.parent
    if not (folder.name and holds_skill_md(folder)):
        return None
    return OneSkill(LocalBackend(folder.parent), folder.name, location=str(folder))


class OneSkill(AsyncResource):
    """A local folder's one skill, as a backend: the listing holds that skill alone.

    Args:
        backend: The folder holding the skill folder.
        name: The skill's folder name.
        location: The location to report: the skill folder as the user named it.
    """

    def __init__(self, backend: LocalBackend, name: str, *, location: str) -> None:
        self._backend = backend
        self._name = name
        self._location = location

    @property
    def location(self) -> str:
        """The skill folder, as the user named it."""
        return self._location

    async def list(self) -> Sequence[SkillRef]:
        """The one skill's listing; the folder holding it is never listed."""
        return await self._backend.list_named([self._name])

    async def get(self, name: str) -> SkillDocument:
        """Delegate to the backend."""
        return await self._backend.get(name)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """Delegate to the backend."""
        return await self._backend.files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Delegate to the backend."""
        return await self._backend.read(name, path, max_bytes=max_bytes)

    async def aclose(self) -> None:
        """Delegate to the backend."""
        await self._backend.aclose()

    async def local_folder(self, name: str) -> str | None:
        """Delegate to the backend: the skill runs its scripts in place."""
        return await self._backend.local_folder(name)
