"""FsspecBackend: skills on any fsspec storage, as a folder of skill folders or a zip bundle.

It sits above :mod:`backends.remote` (the fsspec plumbing: folders and bundles) and
:mod:`backends.index` (published indexes, read through that plumbing): neither imports it, and
the remote layer never imports the index.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from backends.base import FileEntry, SkillDocument, SkillRef
from backends.capabilities import FetchResult, fetch_many
from backends.errors import (
    ResourceNotFoundError,
    SkillNotFoundError,
    StorageError,
)
from backends.index.reader import IndexBackend
from backends.index.store import published_index
from backends.limits import DEFAULT_LIMITS, Limits, check_size
from backends.paths import check_resource_path, check_skill_name, is_skill_name
from backends.remote.budget import DEFAULT_TIMEOUT, TimeBudget
from backends.remote.bundle_source import BundleSource
from backends.remote.errors import Redactor
from backends.remote.filesystem import RemoteFS
from backends.remote.layout import SkillFolder
from backends.remote.protocols import check_available, default_retry, prepare
from backends.remote.retry import RetryPolicy
from backends.remote.sources import FolderSource, SkillView, Source
from backends.remote.urls import join_location, parse_source
from backends.resource import AsyncResource


class FsspecBackend(AsyncResource):
    """Skills on any storage fsspec can open, behind the one Backend protocol.

    ``s3://bucket/skills``, ``gs://…``, ``github://org:repo@ref/skills``, ``memory://…``,
    ``file://…`` and any other fsspec URL name a folder whose first-level subfolders are
    skills. A path ending in ``.zip`` (local or remote) or a chained ``zip://::<URL>`` names a
    zip bundle whose root (or single top folder) holds the skill folders.

    One refresh costs one recursive listing (s3fs: one LIST per 1,000 keys; GitHub: one
    trees request) or, for a bundle, one HEAD (see :mod:`backends.remote.bundle_source` for
    what a changed bundle costs); SKILL.md files are then fetched concurrently, one GET each,
    and resources on demand. ``files()`` is served from the last listing.

    A folder holding a published index (``.well-known/agent-skills/index.json``, as
    ``skillfs publish`` writes it), or a URL naming an ``index.json``, is read through the index
    instead (:class:`~backends.index.reader.IndexBackend`): one HEAD per refresh, one GET when
    it changed, whatever the number of skills. A folder is checked for an index once, when it is
    first opened: one GET, answered 404 for a plain folder.

    Args:
        url: The folder or bundle.
        limits: Bundle limits (archive size, members, declared sizes and ratios).
        retry: How transient failures are retried; by default 4 attempts with backoff, and
            none of skillfs's own for GCS, whose client always retries.
        timeout: Seconds one storage operation (a listing, a SKILL.md or resource read, a
            bundle download) may take in all, retries included, plus a second per MiB it
            transfers; after a timeout, operations fail at once for that long, so a stalled
            store fails a refresh in about ``timeout`` (twice that when only the reads
            stall) and the catalog keeps its last good snapshot. ``None``: only the
            store's own timeouts (s3fs: 15 s per attempt).
        max_concurrency: Most requests in flight at once: SKILL.md downloads from a folder,
            ranged reads of a bundle over ``limits.bundle_download_bytes`` (16 by default;
            more helps when each request waits on network latency, see
            ``docs/benchmarks-remote.md``).
        **storage_options: For the fsspec filesystem: credentials, ``endpoint_url``, …

    Raises:
        UnsupportedSourceError: fsspec knows no filesystem for the URL.
        MissingDependencyError: The filesystem's package is not installed.
    """

    def __init__(
        self,
        url: str,
        *,
        limits: Limits = DEFAULT_LIMITS,
        retry: RetryPolicy | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_concurrency: int = 16,
        **storage_options: Any,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self._budget = TimeBudget(timeout)
        self._spec = parse_source(url)
        self._redact = Redactor.for_source(url, storage_options)
        self._location = self._redact.url(url)
        check_available(self._spec, location=self._location)
        self._target, self._options = prepare(self._spec.target, storage_options, timeout=timeout)
        self._retry = retry or default_retry(self._spec.protocol)
        self._limits = limits
        self._max_concurrency = max_concurrency
        self._source: Source | IndexBackend | None = None
        self._opening = asyncio.Lock()
        self._view: SkillView | None = None

    def __repr__(self) -> str:
        return f"FsspecBackend({self._location!r})"

    @property
    def location(self) -> str:
        """The URL, with any password in it hidden."""
        return self._location

    @property
    def timeout(self) -> float | None:
        """Seconds one storage operation may take, retries included (``None``: no budget)."""
        return self._budget.timeout

    @property
    def is_bundle(self) -> bool:
        """True when the URL names a zip bundle."""
        return self._spec.bundle

    async def list(self) -> Sequence[SkillRef]:
        """List the storage once and return every skill, refused ones with their reason."""
        source = await self._opened()
        if isinstance(source, IndexBackend):
            try:
                return await source.list()
            except ResourceNotFoundError:  # the index is gone: look again, the folder may stay
                await self.aclose()
                source = await self._opened()
                if isinstance(source, IndexBackend):
                    return await source.list()
        return (await self._refresh()).layout.refs()

    async def get(self, name: str) -> SkillDocument:
        """Fetch one SKILL.md (listing first when the name is not known yet)."""
        (result,) = await self.get_many([name])
        if isinstance(result, StorageError):
            raise result
        return result

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Fetch several SKILL.md files concurrently, in order; failures are returned."""
        if isinstance(source := await self._opened(), IndexBackend):
            return await fetch_many(source, names)
        view = await self._view_knowing(names)
        results: dict[int, FetchResult] = {}
        wanted: list[tuple[int, SkillFolder]] = []
        for index, name in enumerate(names):
            try:
                wanted.append((index, self._folder(view, name)))
            except StorageError as exc:
                results[index] = exc
        fetched = await view.fetch([folder.skill_md for _, folder in wanted])
        for (index, folder), data in zip(wanted, fetched, strict=True):
            results[index] = (
                data
                if isinstance(data, StorageError)
                else SkillDocument(
                    folder.name, data, folder.skill_md.fingerprint, folder.skill_md.location
                )
            )
        return [results[index] for index in range(len(names))]

    async def files(self, name: str) -> Sequence[FileEntry]:
        """A skill's visible files as of the last listing (no request once listed)."""
        if isinstance(source := await self._opened(), IndexBackend):
            return await source.files(name)
        check_skill_name(name)
        return self._folder(await self._view_knowing([name]), name).entries()

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_resource_bytes
    ) -> bytes:
        """Read one file of a skill as of the last listing, refusing oversize ones unread."""
        if isinstance(source := await self._opened(), IndexBackend):
            return await source.read(name, path, max_bytes=max_bytes)
        check_skill_name(name)
        relative = check_resource_path(path, location=join_location(self._location, name))
        view = await self._view_knowing([name])
        folder = self._folder(view, name)
        stored = folder.files.get(relative)
        if stored is None:
            skill_folder = folder.skill_md.location.rsplit("/", 1)[0]
            raise ResourceNotFoundError("no such file", location=f"{skill_folder}/{relative}")
        check_size(stored.size, max_bytes, location=stored.location)
        data = await view.read(stored)
        check_size(len(data), max_bytes, location=stored.location)
        return data

    async def aclose(self) -> None:
        """Close the storage's connections; a later call opens them again."""
        async with self._opening:
            source, self._source, self._view = self._source, None, None
        if source is not None:
            await source.aclose()

    async def skill_folders_elsewhere(self) -> Sequence[str]:
        """Folders of the last listing that hold a SKILL.md but are no skill here.

        Hidden folders (``.curated/pdf``), folders nested deeper (``skills/pdf``) and the
        root itself (``""``), relative to the root: where to point instead when the root
        holds no skills. Lists first when nothing was listed yet.
        """
        view = self._view or await self._refresh()
        return view.layout.elsewhere

    async def _refresh(self) -> SkillView:
        source = await self._opened()
        if isinstance(source, IndexBackend):  # only if an index appeared since the caller looked
            raise StorageError("a skills index was published here meanwhile: list again")
        self._view = await source.snapshot()
        return self._view

    async def _view_knowing(self, names: Sequence[str]) -> SkillView:
        """The current view, listed again when a plain name is not in it (it may be new)."""
        view = self._view
        if view is None or any(self._unknown(view, name) for name in names):
            view = await self._refresh()
        return view

    @staticmethod
    def _unknown(view: SkillView, name: str) -> bool:
        return is_skill_name(name) and name not in view.layout.skills

    async def _opened(self) -> Source | IndexBackend:
        async with self._opening:
            if self._source is None:
                self._source = await self._open_source()
            return self._source

    async def _open_source(self) -> Source | IndexBackend:
        spec = self._spec
        location = self._redact.url(spec.target)
        fs = await RemoteFS.open(
            self._target,
            self._options,
            location=location,
            redact=self._redact,
            retry=self._retry,
            budget=self._budget,
        )
        if spec.bundle:
            return BundleSource(
                fs,
                inner_root=spec.inner_root,
                limits=self._limits,
                location=location,
                concurrency=self._max_concurrency,
            )
        index = await published_index(fs, location=location, limits=self._limits)
        if index is not None:
            return index
        return FolderSource(fs, location=location, concurrency=self._max_concurrency)

    def _folder(self, view: SkillView, name: str) -> SkillFolder:
        check_skill_name(name)
        folder = view.layout.skills.get(name)
        if folder is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._location)
        refusal = folder.refusal
        if refusal is not None:
            raise type(refusal)(refusal.message, location=refusal.location)
        return folder
