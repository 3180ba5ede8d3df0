"""Reads of a loaded skill's bytes, and their digests: the part of the catalog readers call.

:class:`SkillBytes` is a base of :class:`~skills_core.catalog.catalog.SkillCatalog`; each
method finds the loaded entry a name serves and hands it to the catalog's
:class:`~skills_core.catalog.skill_reads.SkillReads` (checked against the lock) or to its
:class:`~skills_core.catalog.file_digests.FileDigests`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

from backends.base import FileEntry
from backends.digests import digest_text
from skills_core.catalog.entries import CatalogEntry, entry_digest
from skills_core.catalog.refresher import Refresher
from skills_core.catalog.skill_reads import SkillReads
from skills_core.format.models import SkillMetadata


class _Catalog(Protocol):
    """What :class:`SkillBytes` needs of the catalog it is a base of."""

    _reads: SkillReads
    _refresher: Refresher

    def _loaded_entry(self, name: str) -> tuple[CatalogEntry, SkillMetadata]: ...

    def folder(self, name: str) -> str: ...

    async def read_resource(
        self, name: str, path: str, *, max_bytes: int | None = None
    ) -> bytes: ...


class SkillBytes:
    """A catalog's reads of its loaded skills' files and SKILL.md, and their digests."""

    async def files(self: _Catalog, name: str) -> tuple[FileEntry, ...]:
        """The files of one loaded skill as :meth:`get` gives them, without its SKILL.md.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return await self._reads.files(self._loaded_entry(name)[0])

    def skill_md_digest(self: _Catalog, name: str) -> str:
        """The ``sha256:`` digest of the SKILL.md a loaded skill was built from, without a read.

        The persistent cache keeps it, so a skill a new process took from the cache needs no
        request; held bytes are hashed. Bodies read later are checked against it.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return digest_text(entry_digest(self._loaded_entry(name)[0]))

    async def file_digests(
        self: _Catalog, name: str, files: Sequence[FileEntry], *, max_bytes: int | None = None
    ) -> Sequence[tuple[str, int]]:
        """The ``sha256:`` digest and size of each of ``files`` of a loaded skill, in order.

        Only a file not listed as it was hashed (see :mod:`~skills_core.catalog.file_digests`)
        is read, as :meth:`read_resource` reads it.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            StorageError: A file could not be read.
        """
        read = functools.partial(self.read_resource, name, max_bytes=max_bytes)
        return await self._refresher.file_digests.of(self.folder(name), files, read)

    async def save_file_digests(self: _Catalog) -> None:
        """Keep the file digests learned since the last save in the persistent cache, if any."""
        await self._refresher.save_file_digests()

    async def with_body(self: _Catalog, entry: CatalogEntry) -> CatalogEntry:
        """A loaded entry of this catalog holding its SKILL.md (internal: for search indexes).

        An entry that holds it comes back as is; one that does not (``keep_bodies=False``, or
        from the persistent cache) is read as :meth:`get` reads its body, checked against its
        fingerprint and hash.

        Raises:
            SkillNotFoundError: The skill is gone, or no longer loads under its name.
            StorageError: It could not be read.
        """
        return await self._reads.with_body(entry)

    def skill_md(self: _Catalog, name: str) -> bytes:
        """The SKILL.md bytes a loaded skill was built from, without a storage request.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            RuntimeError: The catalog does not hold it (it keeps metadata only, or the skill
                came from the persistent cache): use :meth:`read_skill_md`.
        """
        raw = self._loaded_entry(name)[0].raw
        if not raw:
            raise RuntimeError("this catalog does not hold that SKILL.md: await read_skill_md")
        return raw

    async def read_skill_md(self: _Catalog, name: str) -> bytes:
        """The SKILL.md bytes of a loaded skill: held ones, or read as :meth:`get` reads them.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            StorageError: A catalog keeping metadata only could not read it.
            LockMismatchError: The catalog has a lock, and the SKILL.md read differs.
        """
        return await self._reads.skill_md(name, self._loaded_entry(name)[0])

    async def read_resource(
        self: _Catalog, name: str, path: str, *, max_bytes: int | None = None
    ) -> bytes:
        """Read one file of a loaded skill, confined to its folder and size-limited.

        Args:
            name: The skill's name.
            path: The file's path relative to the skill folder.
            max_bytes: A tighter size limit for this read; never looser than ``limits``.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            ResourceNotFoundError: No such file.
            UnsafePathError: The path would leave the skill folder.
            LimitExceededError: The file is over ``max_bytes`` or ``limits.max_read_bytes``.
            LockMismatchError: The catalog has a lock, and the file is not in it or differs.
        """
        entry = self._loaded_entry(name)[0]
        return await self._reads.resource(name, entry, path, max_bytes=max_bytes)
