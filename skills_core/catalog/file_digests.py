"""Each file's digest, kept with the fingerprint and size of the version it was computed from.

``skillfs serve`` publishes a ``sha256:`` digest for every file of every skill. A digest is
reused only for a file listed with the same fingerprint (never an empty one) and the same size
as when it was hashed; any other file is read through the catalog (its limits, confinement and
lock apply) and hashed again. The persistent cache saves the digests with the skill's entry
(:mod:`skills_core.catalog.cache_link`), so a new process on an unchanged source reads no file
to publish them, and one changed since is read alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence

from backends.base import FileEntry
from backends.digests import digest_off_loop

FileDigest = tuple[str, str, int, str]
"""A file's path, the fingerprint and size it had when it was hashed, and its digest."""


class FileDigests:
    """The file digests of a catalog's skills, by folder (each skill's storage key)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[FileDigest, ...]] = {}
        self.unsaved = False
        """True when a digest was learned since the cache last saved them."""

    def restore(self, known: Mapping[str, tuple[FileDigest, ...]]) -> None:
        """Take the digests the persistent cache saved (before the first refresh's)."""
        self._known = dict(known)

    def keep(self, folders: Collection[str]) -> None:
        """Forget the digests of skills not in ``folders`` (gone at a refresh)."""
        self._known = {folder: kept for folder, kept in self._known.items() if folder in folders}

    def to_save(self) -> dict[str, tuple[FileDigest, ...]]:
        """Every skill's digests, as the cache saves them now (no longer :attr:`unsaved`)."""
        self.unsaved = False
        return dict(self._known)

    async def of(
        self, folder: str, files: Sequence[FileEntry], read: Callable[[str], Awaitable[bytes]]
    ) -> list[tuple[str, int]]:
        """The digest and size of each of ``files``; ``read(path)`` reads one not known as is.

        ``files`` is the skill's whole list (its SKILL.md aside): digests of others are dropped.
        """
        known = {record[0]: record[1:] for record in self._known.get(folder, ())}
        found: list[tuple[str, int]] = []
        kept: list[FileDigest] = []
        for file in files:
            held = known.get(file.path)
            if held is None or not file.fingerprint or held[:2] != (file.fingerprint, file.size):
                data = await read(file.path)
                held = (file.fingerprint, len(data), await digest_off_loop(data))
            if file.fingerprint:
                kept.append((file.path, held[0], held[1], held[2]))
            found.append((held[2], held[1]))
        record = tuple(sorted(kept))  # as saved, whatever order the listing gives
        if self._known.get(folder) != record:
            self._known[folder] = record
            self.unsaved = True
        return found
