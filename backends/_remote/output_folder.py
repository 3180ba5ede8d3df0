"""Writing files to a local path (replaced atomically) or any fsspec URL, 16 at a time."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from backends._errors import ResourceNotFoundError, StorageError
from backends._local_files import replace_file
from backends._paths import check_relative_path
from backends._remote.failures import Redactor
from backends._remote.filesystem import RemoteFS, Reopening
from backends._remote.urls import check_names_something, join_location, parse_source, protocol_of

_CONCURRENCY = 16


async def write_bytes(url: str, data: bytes, **storage_options: Any) -> str:
    """Create or replace the file at ``url`` with ``data``; returns where (password hidden)."""
    async with OutputFolder.open(url, **storage_options) as target:
        await target.write({"": data})
    return target.location


class OutputFolder:
    """Files below one folder (:meth:`open`), by ``/``-separated path; ``""`` is the URL itself."""

    def __init__(self, location: str, *, local: str | None, fs: RemoteFS | None) -> None:
        self.location = location  # any password hidden
        self._local = local
        self._fs = fs

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, url: str, **storage_options: Any) -> AsyncIterator[OutputFolder]:
        """The folder ``url`` (a local path, ``file://`` URL or any fsspec URL), closed after."""
        check_names_something(url)
        redact = Redactor.for_source(url, storage_options)
        location = redact.url(url)
        if protocol_of(url) == "file" and "::" not in url:
            path = unquote(urlsplit(url).path) if url.startswith("file:") else url
            yield cls(location, local=path, fs=None)
            return
        remote = Reopening(parse_source(url), storage_options, redact=redact, location=location)
        try:
            yield cls(location, local=None, fs=await remote.get())
        finally:
            await remote.aclose()

    async def write(self, files: Mapping[str, bytes]) -> None:
        """Create or replace each file (the first failure stops the others)."""
        for relative in files:
            if relative:
                check_relative_path(relative)
        if self._local is not None:
            await asyncio.to_thread(_replace_all, self._local, files, self.location)
            return
        fs = self._fs
        assert fs is not None

        async def put(relative: str) -> None:
            await fs.pipe(self._path(relative), files[relative], location=self._at(relative))

        await self._each(files, put)

    async def files(self, under: str) -> dict[str, int]:
        """The size of every file below the folder ``under``, by path; none when it is missing."""
        if self._local is not None:
            return await asyncio.to_thread(_local_files, self._local, under, self.location)
        assert self._fs is not None
        root = self._path("")
        prefix = f"{root.rstrip('/')}/" if root.strip("/") else root
        found = await self._fs.find(self._path(under), location=self._at(under))
        return {
            path[len(prefix) :]: int(details.get("size") or 0)
            for path, details in found.items()
            if path.startswith(prefix) and details.get("type", "file") == "file"
        }

    async def read(self, relative: str, *, size: int) -> bytes:
        """One file that a listing gave as ``size`` bytes long (StorageError otherwise)."""
        if self._local is not None:
            path = os.path.join(self._local, relative)
            return await asyncio.to_thread(_read_local, path, size, self._at(relative))
        assert self._fs is not None
        return await self._fs.cat(self._path(relative), location=self._at(relative), size=size)

    async def delete(self, paths: Iterable[str]) -> None:
        """Delete each file (one already gone is no error), and the local folders left empty."""
        paths = [check_relative_path(path) for path in paths]
        if self._local is not None:
            await asyncio.to_thread(_delete_local, self._local, paths, self.location)
            return
        fs = self._fs
        assert fs is not None

        async def remove(relative: str) -> None:
            with contextlib.suppress(ResourceNotFoundError):
                await fs.remove(self._path(relative), location=self._at(relative))

        await self._each(paths, remove)

    def _path(self, relative: str) -> str:
        assert self._fs is not None
        return join_location(self._fs.path, relative)

    def _at(self, relative: str) -> str:
        return join_location(self.location, relative)

    @staticmethod
    async def _each(paths: Iterable[str], work: Callable[[str], Awaitable[None]]) -> None:
        gate = asyncio.Semaphore(_CONCURRENCY)

        async def gated(relative: str) -> None:
            async with gate:
                await work(relative)

        try:
            async with asyncio.TaskGroup() as group:
                for relative in paths:
                    group.create_task(gated(relative))
        except* StorageError as failed:
            first = failed.exceptions[0]  # the first failure, as one call would raise it
            raise first from first.__cause__


def _replace_all(root: str, files: Mapping[str, bytes], location: str) -> None:
    for relative, data in files.items():
        path = os.path.join(root, relative) if relative else root
        try:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            replace_file(path, data)
        except OSError as exc:
            where = join_location(location, relative)
            raise StorageError(f"cannot write: {exc.strerror or exc}", location=where) from exc


def _local_files(root: str, under: str, location: str) -> dict[str, int]:
    found: dict[str, int] = {}
    top = os.path.join(root, under)

    def fail(exc: OSError) -> None:
        if not isinstance(exc, FileNotFoundError):
            raise StorageError(f"cannot list: {exc.strerror or exc}", location=location) from exc

    for folder, _, names in os.walk(top, onerror=fail):
        for name in names:
            path = os.path.join(folder, name)
            with contextlib.suppress(FileNotFoundError):
                details = os.lstat(path)
                if stat.S_ISREG(details.st_mode):
                    found[os.path.relpath(path, root).replace(os.sep, "/")] = details.st_size
    return found


def _read_local(path: str, size: int, location: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(size + 1)
    except OSError as exc:
        raise StorageError(f"cannot read: {exc.strerror or exc}", location=location) from exc
    if len(data) != size:
        raise StorageError(f"changed while read: {len(data)} bytes, not {size}", location=location)
    return data


def _delete_local(root: str, paths: Iterable[str], location: str) -> None:
    for relative in paths:
        path = os.path.join(root, relative)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            where = join_location(location, relative)
            raise StorageError(f"cannot delete: {exc.strerror or exc}", location=where) from exc
        folder = os.path.dirname(relative)
        while folder:
            try:
                os.rmdir(os.path.join(root, folder))
            except OSError:
                break  # not empty, or gone
            folder = os.path.dirname(folder)
