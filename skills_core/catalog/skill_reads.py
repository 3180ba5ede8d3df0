"""Reads of a loaded skill's files for the catalog: held or fetched, checked against its lock.

A catalog that holds every SKILL.md answers from memory; one that does not (``keep_bodies=False``,
or skills from the persistent cache) reads bodies through
:class:`~skills_core.catalog.bodies.BodyStore`. With a lock, every SKILL.md read again and every
resource read is checked against its locked digest before it is returned.
"""

from __future__ import annotations

from backends.base import Backend, FileEntry
from backends.limits import Limits
from skills_core.catalog.bodies import BodyStore
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.file_lists import FileLists
from skills_core.catalog.loading import Loader
from skills_core.format.models import Skill, SkillMetadata


class SkillReads:
    """The reads :class:`~skills_core.catalog.catalog.SkillCatalog` serves for loaded entries.

    Each method takes the served ``name`` (what the lock knows) and the entry it names.

    Args:
        backend: Where the skills live.
        limits: ``max_read_bytes`` bounds every resource read.
        loader: The catalog's loader, whose ``lock`` (once read) every read is checked against.
        file_lists: The file lists of the last refresh.
        bodies: Where the bodies the catalog does not hold are read; ``None`` when it holds all.
    """

    def __init__(
        self,
        backend: Backend,
        limits: Limits,
        loader: Loader,
        file_lists: FileLists,
        bodies: BodyStore | None,
    ) -> None:
        self._backend = backend
        self._limits = limits
        self._loader = loader
        self._file_lists = file_lists
        self._bodies = bodies

    @property
    def keeps_bodies(self) -> bool:
        """True when every SKILL.md is held in memory."""
        return self._bodies is None

    async def skill(self, name: str, entry: CatalogEntry, metadata: SkillMetadata) -> Skill:
        """The skill with its body and its files as of the last refresh."""
        files = await self.files(entry)
        if self._bodies is None or entry.raw:
            return Skill(metadata, entry.body, entry.location, files)
        metadata, body, _ = await self._read_body(name, entry)
        return Skill(metadata, body, entry.location, files)

    async def files(self, entry: CatalogEntry) -> tuple[FileEntry, ...]:
        """The skill's files, listed once per refresh."""
        return await self._file_lists.of(entry.name)

    async def with_body(self, entry: CatalogEntry) -> CatalogEntry:
        """``entry`` holding its SKILL.md: as is, or read and checked as its body is."""
        if self._bodies is None or entry.raw:
            return entry
        return await self._bodies.held(entry)

    async def skill_md(self, name: str, entry: CatalogEntry) -> bytes:
        """The SKILL.md bytes: held ones, or read as a body is."""
        if self._bodies is None or entry.raw:
            return entry.raw
        return (await self._read_body(name, entry))[2]

    async def _read_body(self, name: str, entry: CatalogEntry) -> tuple[SkillMetadata, str, bytes]:
        """What :meth:`BodyStore.skill` reads, checked against the lock when there is one."""
        assert self._bodies is not None
        read = await self._bodies.skill(entry)
        lock = self._loader.lock
        if lock is not None:
            await lock.verify_skill_md(name, read[2], location=entry.location)
        return read

    async def resource(
        self, name: str, entry: CatalogEntry, path: str, *, max_bytes: int | None
    ) -> bytes:
        """One file of the skill, size-limited, checked against the lock when there is one."""
        limit = self._limits.max_read_bytes
        if max_bytes is not None:
            limit = min(limit, max_bytes)
        data = await self._backend.read(entry.name, path, max_bytes=limit)
        lock = self._loader.lock
        if lock is None:
            return data
        return await lock.verify(name, path, data, location=entry.location)
