"""Where skill files come from: a folder of skill folders on a filesystem.

Zip bundles are the other source (:mod:`backends.remote.bundles`). A source's
:meth:`snapshot` is the one listing of a refresh. It returns a view: the layout of
the skills plus a way to read their files *as of that listing* (a bundle's view keeps reading
the archive it was built from, even after a newer one was downloaded).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from backends.errors import (
    ResourceNotFoundError,
    SkillNotFoundError,
    StorageError,
)
from backends.remote.filesystem import RemoteFS
from backends.remote.layout import Layout, StoredFile, build_layout, listing_candidates


class SkillView(Protocol):
    """The skills of one listing, and how to read their files."""

    @property
    def layout(self) -> Layout:
        """The skill folders found."""

    async def fetch(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        """Read several SKILL.md files; a missing one is a :class:`SkillNotFoundError`."""

    async def read(self, stored: StoredFile) -> bytes:
        """Read one resource file."""


class Source(Protocol):
    """Storage that can be listed into a :class:`SkillView`."""

    async def snapshot(self) -> SkillView:
        """List the storage once."""

    async def aclose(self) -> None:
        """Close the storage's connections."""


class FolderView:
    """Files read from the live filesystem, each in one GET, SKILL.md files concurrently."""

    def __init__(self, fs: RemoteFS, layout: Layout, *, concurrency: int) -> None:
        self._fs = fs
        self._layout = layout
        self._concurrency = concurrency

    @property
    def layout(self) -> Layout:
        """The skill folders of the listing."""
        return self._layout

    async def fetch(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        """GET every file, at most ``concurrency`` at a time, with no HEAD before them."""
        semaphore = asyncio.Semaphore(self._concurrency)

        async def one(stored: StoredFile) -> bytes | StorageError:
            async with semaphore:
                try:
                    return await self._fs.cat(
                        stored.key,
                        location=stored.location,
                        missing=SkillNotFoundError,
                        size=stored.expected_size,
                    )
                except StorageError as exc:
                    return exc

        return list(await asyncio.gather(*(one(stored) for stored in files)))

    async def read(self, stored: StoredFile) -> bytes:
        """GET one file."""
        return await self._fs.cat(
            stored.key,
            location=stored.location,
            missing=ResourceNotFoundError,
            size=stored.expected_size,
        )


class FolderSource:
    """A folder of skill folders, listed with one recursive, detailed listing."""

    def __init__(self, fs: RemoteFS, *, location: str, concurrency: int) -> None:
        self._fs = fs
        self._location = location
        self._concurrency = concurrency
        self._listed: FolderView | None = None  # made by holds(), for the next snapshot

    async def holds(self, relative: str) -> bool:
        """List the folder and say whether ``relative`` (a file path below it) is listed.

        The listing answers the next :meth:`snapshot`, so checking costs no request.
        """
        self._listed, listing = await self._list()
        root = self._fs.path.rstrip("/")
        return (f"{root}/{relative}" if root else relative) in listing

    async def snapshot(self) -> FolderView:
        """List every file below the root at once (s3fs: one LIST per 1,000 keys)."""
        listed, self._listed = self._listed, None
        return listed if listed is not None else (await self._list())[0]

    async def aclose(self) -> None:
        """Close the filesystem's session."""
        await self._fs.aclose()

    async def _list(self) -> tuple[FolderView, Mapping[str, Mapping[str, Any]]]:
        root = self._fs.path
        listing = await self._fs.find(root, location=self._location)
        layout = await asyncio.to_thread(_folder_layout, listing, root, self._location)
        return FolderView(self._fs, layout, concurrency=self._concurrency), listing


def _folder_layout(listing: Mapping[str, Mapping[str, Any]], root: str, location: str) -> Layout:
    return build_layout(listing_candidates(listing, root, base=location))
