"""Wrappers around a real backend that count calls or inject failures, for catalog tests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from backends import Backend, FileEntry, SkillDocument, SkillRef
from backends._errors import StorageError
from backends.capabilities import DocumentLister, FetchResult, ListedDocument, fetch_many


class CountingBackend:
    """Delegates to ``inner``, counting listings, the names each fetch asked for and reads."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.listings = 0
        self.fetched: list[str] = []
        self.reads: list[tuple[str, str]] = []
        self.fail_listing: Exception | None = None
        self.fail_fetch: dict[str, StorageError] = {}
        self.gate: asyncio.Event | None = None
        self.at_gate = asyncio.Event()  # set once a fetch waits at ``gate``

    @property
    def location(self) -> str:
        return self.inner.location

    async def list(self) -> Sequence[SkillRef]:
        self.listings += 1
        if self.fail_listing is not None:
            raise self.fail_listing
        return await self.inner.list()

    async def get(self, name: str) -> SkillDocument:
        result = (await self.get_many([name]))[0]
        if isinstance(result, StorageError):
            raise result
        return result

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        if self.gate is not None:
            self.at_gate.set()
            await self.gate.wait()
        self.fetched += names
        results = list(await fetch_many(self.inner, names))
        return [
            self.fail_fetch.get(name, result) for name, result in zip(names, results, strict=True)
        ]

    async def files(self, name: str) -> Sequence[FileEntry]:
        return await self.inner.files(name)

    async def read(self, name: str, path: str, *, max_bytes: int = 1 << 20) -> bytes:
        self.reads.append((name, path))
        return await self.inner.read(name, path, max_bytes=max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


class CountingLister(CountingBackend):
    """A CountingBackend over a DocumentLister that also counts one-pass listings."""

    def __init__(self, inner: DocumentLister) -> None:
        super().__init__(inner)  # type: ignore[arg-type]
        self.lister = inner
        self.document_listings = 0

    async def list_documents(self, *, max_bytes: int) -> Sequence[ListedDocument]:
        self.document_listings += 1
        if self.fail_listing is not None:
            raise self.fail_listing
        return await self.lister.list_documents(max_bytes=max_bytes)
