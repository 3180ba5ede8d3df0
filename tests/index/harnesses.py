"""Conformance harnesses: the canonical tree in a local folder, published by skillfs after every
change, and read back over HTTP (HttpIndexBackend) or from a bucket (FsspecBackend)."""

from __future__ import annotations

import asyncio
import shutil
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from backends import Backend, FsspecBackend, HttpIndexBackend, LocalBackend
from backends.testing import BackendHarness
from skills_core import publish
from tests.index.sites import Site
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options


class PublishedHarness(BackendHarness, ABC):
    """The tree as a source folder, published again after every change."""

    def __init__(self, source: Path) -> None:
        self.source = source

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        await asyncio.to_thread(self._write_tree, tree)
        await self.publish()
        return self.backend()

    async def write(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(self._write_tree, {path: data})
        await self.publish()

    async def delete_skill(self, name: str) -> None:
        await asyncio.to_thread(shutil.rmtree, self.source / name)
        await self.publish()

    @abstractmethod
    async def publish(self) -> None:
        """Publish the source folder where the backend reads it."""

    @abstractmethod
    def backend(self) -> Backend:
        """A backend reading the publication."""

    def _write_tree(self, tree: Mapping[str, bytes]) -> None:
        for path, data in tree.items():
            target = self.source / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


class SiteHarness(PublishedHarness):
    """A publication served by a static HTTP site."""

    def __init__(self, source: Path, site: Site) -> None:
        super().__init__(source)
        self.site = site

    async def publish(self) -> None:
        """Publish to a local folder, then serve exactly what it holds."""
        out = self.source.with_name(f"{self.source.name}-published")
        await publish(LocalBackend(self.source), out)
        self.site.mirror(await asyncio.to_thread(_files_below, out))

    def backend(self) -> Backend:
        return HttpIndexBackend(self.site.url, retry=FAST_RETRY)


class BucketHarness(PublishedHarness):
    """A publication in a moto bucket, below ``s3://<bucket>/site``."""

    def __init__(self, source: Path, server: S3Server, bucket: str) -> None:
        super().__init__(source)
        self.server = server
        self.url = f"s3://{bucket}/site"

    async def publish(self) -> None:
        await publish(LocalBackend(self.source), self.url, out_options=s3_options(self.server))

    def backend(self, **options: Any) -> FsspecBackend:
        return FsspecBackend(self.url, retry=FAST_RETRY, **s3_options(self.server, **options))


def _files_below(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file()
    }
