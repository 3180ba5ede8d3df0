"""SKILL.md bodies for a catalog that keeps metadata only: fetched on demand, never stale.

A catalog built with ``keep_bodies=False`` drops each SKILL.md once it has judged it, keeping
the metadata and a hash of the bytes. A body is fetched again when a reader asks for it, and
checked against the fingerprint the catalog's entry was built from:

- the same fingerprint: the body of the bytes the entry was judged from;
- another one (the file changed since the last refresh): those bytes are judged again, and the
  skill is served as it is now, metadata and body together; if it no longer loads under the
  same name, the reader is told to refresh.

An entry its source listed (:mod:`skills_core.catalog.listed`) holds no SKILL.md until the
skill is used, whatever ``keep_bodies`` says; it is read here then, and verified against what
the listing gave.

Recently read SKILL.md files are kept in a least-recently-used cache keyed by folder *and*
fingerprint, so an edit is never answered from the cache. By default the cache holds nothing
for local folders and memory (a read costs less than the memory), and 1,024 files for other
backends, where each read is a request.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from backends.base import Backend
from backends.errors import SkillNotFoundError, VerificationError
from backends.local import LocalBackend
from backends.memory import MemoryBackend
from skills_core.catalog.entries import CatalogEntry
from skills_core.errors import EntryMismatchError

if TYPE_CHECKING:
    from skills_core.catalog.loading import Loader

REMOTE_BODY_CACHE = 1024
"""SKILL.md files a metadata-only catalog keeps by default for a remote backend (about 5 MiB
of typical skills)."""


def default_body_cache(backend: Backend) -> int:
    """How many SKILL.md files to keep for ``backend``: none where reading is cheap."""
    return 0 if isinstance(backend, LocalBackend | MemoryBackend) else REMOTE_BODY_CACHE


class BodyStore:
    """Reads the SKILL.md of catalog entries that do not hold it, through a small cache.

    Args:
        backend: Where the skills live.
        loader: How the catalog judges a SKILL.md that changed since it was listed, and
            verifies one against the entry its source listed.
        cache_size: How many SKILL.md files to keep.
    """

    def __init__(self, backend: Backend, loader: Loader, cache_size: int) -> None:
        self._backend = backend
        self._loader = loader
        self._cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str], bytes] = OrderedDict()

    async def held(self, entry: CatalogEntry) -> CatalogEntry:
        """A loaded ``entry`` holding its SKILL.md as stored now (judged again if it changed).

        An entry known from its source's listing is verified against it instead.

        Raises:
            SkillNotFoundError: The skill is gone, or no longer loads under its name.
            EntryMismatchError: A listed entry's SKILL.md is not the one its source listed.
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
        try:
            document = await self._backend.get(entry.name)
        except VerificationError as exc:
            if entry.listed is None:
                raise
            raise EntryMismatchError(exc.message, location=exc.location) from exc
        if entry.listed is not None:
            current = self._loader.verify(entry, document)
        else:
            current = entry._replace(raw=document.data)
            if document.fingerprint != entry.fingerprint or not entry.holds(document.data):
                current = self._loader.judge(document)._replace(raw=document.data)
                if current.metadata is None or current.metadata.name != metadata.name:
                    raise SkillNotFoundError(
                        f"skill {metadata.name!r} changed since the last refresh and no longer "
                        "loads under that name: refresh the catalog",
                        location=entry.location,
                    )
        self._remember((entry.name, document.fingerprint), document.data)
        return current

    def _remember(self, key: tuple[str, str], raw: bytes) -> None:
        if self._cache_size <= 0:
            return
        self._cache[key] = raw
        self._cache.move_to_end(key)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
