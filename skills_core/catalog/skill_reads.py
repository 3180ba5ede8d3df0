"""Reads of a loaded skill's files for the catalog: held or fetched, checked against its lock.

A catalog that holds a skill's SKILL.md answers from memory; one that does not (``keep_bodies=
False``, skills from the persistent cache, skills known from their source's listing) reads it
through :class:`~skills_core.catalog.bodies.BodyStore`. A listed skill's SKILL.md is verified
before any other file of it is read; one that fails is refused in the catalog (``refuse``).
With a lock, every SKILL.md read again and every resource read is checked against its locked
digest before it is returned.
"""

from __future__ import annotations

from collections.abc import Callable

from backends.base import Backend, FileEntry
from backends.limits import Limits
from skills_core.catalog.bodies import BodyStore
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.file_lists import FileLists
from skills_core.catalog.listed import refusal
from skills_core.catalog.loading import Loader
from skills_core.errors import EntryMismatchError
from skills_core.format.models import Skill, SkillMetadata

Replace = Callable[[CatalogEntry, CatalogEntry], None]
"""Serves a new entry in place of an old one of the catalog's snapshot."""


class SkillReads:
    """The reads :class:`~skills_core.catalog.catalog.SkillCatalog` serves for loaded entries.

    Each method takes the served ``name`` (what the lock knows) and the entry it names.

    Args:
        backend: Where the skills live.
        limits: ``max_read_bytes`` bounds every resource read.
        loader: The catalog's loader, whose ``lock`` (once read) every read is checked against.
        file_lists: The file lists of the last refresh.
        bodies: Where the bodies the catalog does not hold are read.
        replace: Puts a refused listed entry in place of the one it refuses.
    """

    def __init__(
        self,
        backend: Backend,
        limits: Limits,
        loader: Loader,
        file_lists: FileLists,
        *,
        bodies: BodyStore,
        replace: Replace,
    ) -> None:
        self._backend = backend
        self._limits = limits
        self._loader = loader
        self._file_lists = file_lists
        self._bodies = bodies
        self._replace = replace

    async def skill(self, name: str, entry: CatalogEntry, metadata: SkillMetadata) -> Skill:
        """The skill with its body and its files as of the last refresh."""
        if entry.raw:
            return Skill(metadata, entry.body, entry.location, await self.files(entry))
        held = await self._read_body(name, entry)
        assert held.metadata is not None
        return Skill(held.metadata, held.body, entry.location, await self.files(entry))

    async def files(self, entry: CatalogEntry) -> tuple[FileEntry, ...]:
        """The skill's files, listed once per refresh."""
        return await self._file_lists.of(entry.name)

    async def with_body(self, entry: CatalogEntry) -> CatalogEntry:
        """``entry`` holding its SKILL.md: as is, or read and checked as its body is."""
        return entry if entry.raw else await self._held(entry)

    async def skill_md(self, name: str, entry: CatalogEntry) -> bytes:
        """The SKILL.md bytes: held ones, or read as a body is."""
        return entry.raw or (await self._read_body(name, entry)).raw

    async def _read_body(self, name: str, entry: CatalogEntry) -> CatalogEntry:
        """``entry`` holding its SKILL.md, checked against the lock when there is one."""
        held = await self._held(entry)
        lock = self._loader.lock
        if lock is not None:
            await lock.verify_skill_md(name, held.raw, location=entry.location)
        return held

    async def _held(self, entry: CatalogEntry) -> CatalogEntry:
        """What the body store reads; a listed entry it refuses is refused in the catalog."""
        try:
            return await self._bodies.held(entry)
        except EntryMismatchError as exc:
            self._replace(entry, refusal(entry, exc))
            raise

    async def resource(
        self, name: str, entry: CatalogEntry, path: str, *, max_bytes: int | None
    ) -> bytes:
        """One file of the skill, size-limited, checked against the lock when there is one.

        A listed skill's SKILL.md is verified first: no file of a skill refused is read.
        """
        if entry.listed is not None and not entry.raw:
            await self._held(entry)
        limit = self._limits.max_read_bytes
        if max_bytes is not None:
            limit = min(limit, max_bytes)
        data = await self._backend.read(entry.name, path, max_bytes=limit)
        lock = self._loader.lock
        if lock is None:
            return data
        return await lock.verify(name, path, data, location=entry.location)
