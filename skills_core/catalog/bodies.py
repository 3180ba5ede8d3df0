"""SKILL.md bodies for a catalog that keeps metadata only: fetched on demand, never stale.

A catalog built with ``keep_bodies=False`` drops each SKILL.md once it has judged it, keeping
the metadata and a hash of the bytes. A body is fetched again when a reader asks for it, and
checked against the fingerprint the catalog's entry was built from:

- the same fingerprint: the body of the bytes the entry was judged from;
- another one (the file changed since the last refresh): those bytes are judged again, and the
  skill is served as it is now, metadata and body together; if it no longer loads under the
  same name, the reader is told to refresh.

Recently read SKILL.md files are kept in a least-recently-used cache keyed by folder *and*
fingerprint, so an edit is never answered from the cache. By default the cache holds nothing
for local folders and memory (a read costs less than the memory), and 1,024 files for other
backends, where each read is a request.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from backends.base import Backend, SkillDocument
from backends.errors import SkillNotFoundError
from backends.local import LocalBackend
from backends.memory import MemoryBackend
from skills_core.catalog.entries import CatalogEntry
from skills_core.format.models import SkillMetadata

REMOTE_BODY_CACHE = 1024
"""SKILL.md files a metadata-only catalog keeps by default for a remote backend (about 5 MiB
of typical skills)."""

Judge = Callable[[SkillDocument], CatalogEntry]
"""Judges one SKILL.md as the catalog does (limits, strictness, withheld fields)."""


def default_body_cache(backend: Backend) -> int:
    """How many SKILL.md files to keep for ``backend``: none where reading is cheap."""
    return 0 if isinstance(backend, LocalBackend | MemoryBackend) else REMOTE_BODY_CACHE


class BodyStore:
    """Reads the SKILL.md of catalog entries that do not hold it, through a small cache.

    Args:
        backend: Where the skills live.
        judge: How the catalog judges a SKILL.md, for one that changed since it was listed.
        cache_size: How many SKILL.md files to keep.
    """

    def __init__(self, backend: Backend, judge: Judge, cache_size: int) -> None:
        self._backend = backend
        self._judge = judge
        self._cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    async def skill(self, entry: CatalogEntry) -> tuple[SkillMetadata, str, bytes]:
        """The metadata, body and SKILL.md bytes of a loaded ``entry``, as stored now.

        Raises:
            SkillNotFoundError: The skill is gone, or no longer loads under its name.
            StorageError: It could not be read.
        """
        current = await self.held(entry)
        assert current.metadata is not None
        return current.metadata, current.body, current.raw

    async def held(self, entry: CatalogEntry) -> CatalogEntry:
        """A loaded ``entry`` holding its SKILL.md as stored now (judged again if it changed).

        Raises:
            SkillNotFoundError: The skill is gone, or no longer loads under its name.
            StorageError: It could not be read.
        """
        metadata = entry.metadata
        if metadata is None:
            raise SkillNotFoundError(f"skill {entry.name!r} is not loaded", location=entry.location)
        key = (entry.name, entry.fingerprint)
        raw = self._cache.get(key)
        if raw is not None:
            self._cache.move_to_end(key)
            return entry._replace(raw=raw)
        document = await self._backend.get(entry.name)
        current = entry._replace(raw=document.data)
        if document.fingerprint != entry.fingerprint or not entry.holds(document.data):
            current = self._judge(document)._replace(raw=document.data)
            if current.metadata is None or current.metadata.name != metadata.name:
                raise SkillNotFoundError(
                    f"skill {metadata.name!r} changed since the last refresh and no longer "
                    "loads under that name: refresh the catalog",
                    location=entry.location,
                )
        self._remember((entry.name, document.fingerprint), document.data)
        return current

    def forget(self) -> None:
        """Drop every cached SKILL.md."""
        self._cache.clear()

    def _remember(self, key: tuple[str, str], raw: bytes) -> None:
        if self._cache_size <= 0:
            return
        self._cache[key] = raw
        self._cache.move_to_end(key)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
