"""Harnesses that store the conformance tree where each fsspec-backed storage reads it."""

from __future__ import annotations

import asyncio
import os
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fsspec.implementations.memory import MemoryFileSystem

from backends import Backend, BundleBackend, FsspecBackend
from backends.testing import BackendHarness
from tests.backends.harnesses import LocalHarness
from tests.remote.servers import FakeGithub, GcsServer, S3Server
from tests.remote.settings import FAST_RETRY, gcs_options, s3_options
from tests.remote.zips import zip_bytes


class S3Harness(BackendHarness):
    def __init__(self, server: S3Server, client: Any, bucket: str, prefix: str = "skills") -> None:
        self.server, self.client, self.bucket, self.prefix = server, client, bucket, prefix

    @classmethod
    def filled(
        cls, server: S3Server, client: Any, bucket: str, tree: Mapping[str, bytes]
    ) -> S3Harness:
        """A harness whose bucket holds ``tree``, with an empty request log."""
        harness = cls(server, client, bucket)
        harness.put_tree(tree)
        server.log.reset()
        return harness

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"

    def backend(self, **options: Any) -> FsspecBackend:
        return FsspecBackend(self.url, retry=FAST_RETRY, **s3_options(self.server, **options))

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        await asyncio.to_thread(self.put_tree, tree)
        return self.backend()

    def put_tree(self, tree: Mapping[str, bytes]) -> None:
        for path, data in tree.items():
            self.client.put_object(Bucket=self.bucket, Key=f"{self.prefix}/{path}", Body=data)

    async def write(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(self.put_tree, {path: data})

    async def delete_skill(self, name: str) -> None:
        await asyncio.to_thread(self._delete, f"{self.prefix}/{name}/")

    def _delete(self, prefix: str) -> None:
        listed = self.client.list_objects_v2(Bucket=self.bucket, Prefix=prefix)
        for item in listed.get("Contents", []):
            self.client.delete_object(Bucket=self.bucket, Key=item["Key"])


class GcsHarness(BackendHarness):
    def __init__(self, server: GcsServer, fs: Any, bucket: str) -> None:
        self.server, self.fs, self.bucket = server, fs, bucket

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        url = f"gs://{self.bucket}/skills"
        return FsspecBackend(url, retry=FAST_RETRY, **gcs_options(self.server))

    async def write(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(self.fs.pipe_file, f"{self.bucket}/skills/{path}", data)

    async def delete_skill(self, name: str) -> None:
        await asyncio.to_thread(self.fs.rm, f"{self.bucket}/skills/{name}", recursive=True)


class GithubHarness(BackendHarness):
    def __init__(self, github: FakeGithub, repo: str) -> None:
        self.files = github.repos[("org", repo, "main")]
        self.url = f"github://org:{repo}@main/skills"

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        return FsspecBackend(self.url, retry=FAST_RETRY)

    async def write(self, path: str, data: bytes) -> None:
        self.files[f"skills/{path}"] = data

    async def delete_skill(self, name: str) -> None:
        for path in [path for path in self.files if path.startswith(f"skills/{name}/")]:
            del self.files[path]


class BundleHarness(BackendHarness, ABC):
    """The tree as one zip archive, rewritten whole on every change.

    Read by :class:`BundleBackend`.
    """

    def __init__(self) -> None:
        self.tree: dict[str, bytes] = {}

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        self.tree.update(tree)
        await self.store(zip_bytes(self.tree))
        return self.backend()

    @abstractmethod
    def backend(self) -> BundleBackend:
        """A backend reading the stored archive."""

    @abstractmethod
    async def store(self, archive: bytes) -> None:
        """Store the archive where the backend reads it."""

    async def write(self, path: str, data: bytes) -> None:
        self.tree[path] = data
        await self.store(zip_bytes(self.tree))

    async def delete_skill(self, name: str) -> None:
        self.tree = {
            path: data for path, data in self.tree.items() if not path.startswith(f"{name}/")
        }
        await self.store(zip_bytes(self.tree))


class LocalZipHarness(BundleHarness):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.path = root / "skills.zip"

    def backend(self) -> BundleBackend:
        return BundleBackend(str(self.path))

    async def store(self, archive: bytes) -> None:
        await asyncio.to_thread(replace_file, self.path, archive)


class S3ZipHarness(BundleHarness):
    def __init__(self, server: S3Server, client: Any, bucket: str) -> None:
        super().__init__()
        self.server, self.client, self.bucket = server, client, bucket
        self.url = f"zip://::s3://{bucket}/bundles/skills.zip"

    def backend(self) -> BundleBackend:
        return BundleBackend(self.url, retry=FAST_RETRY, **s3_options(self.server))

    async def store(self, archive: bytes) -> None:
        await asyncio.to_thread(
            self.client.put_object, Bucket=self.bucket, Key="bundles/skills.zip", Body=archive
        )


class MemoryFsHarness(BackendHarness):
    """fsspec's own memory filesystem (process-wide), not skillfs's MemoryBackend."""

    def __init__(self, fs: MemoryFileSystem) -> None:
        self.fs = fs

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        return FsspecBackend("memory://skills")

    async def write(self, path: str, data: bytes) -> None:
        self.fs.pipe_file(f"/skills/{path}", data)

    async def delete_skill(self, name: str) -> None:
        self.fs.rm(f"/skills/{name}", recursive=True)


class FileUrlHarness(LocalHarness):
    """A local folder read through fsspec's LocalFileSystem (a sync, wrapped filesystem)."""

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        await super().make_backend(tree)
        return FsspecBackend(self.root.as_uri())


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file renamed over ``path`` (a new inode, as real tools do)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent)
    with os.fdopen(handle, "wb") as stream:
        stream.write(data)
    os.replace(temporary, path)
