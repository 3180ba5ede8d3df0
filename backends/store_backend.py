"""StoreBackend: what the backends on fsspec storage share, whatever kind of source they serve.

:class:`~backends.fsspec_backend.FsspecBackend` (a folder of skills, or the index published in
it) and :class:`~backends.bundle_backend.BundleBackend` (a zip bundle) take the same URL,
options, retries and deadline, and open the storage the same way, lazily, through
:mod:`backends.remote`; they differ only in what they serve once it is open (``_serve``).
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from backends.base import Backend, FileEntry, SkillDocument, SkillRef
from backends.capabilities import FetchResult, export_state, fetch_many, import_state
from backends.limits import DEFAULT_LIMITS, Limits
from backends.remote.bundles import BundleSource
from backends.remote.failures import DEFAULT_TIMEOUT, Deadline, Redactor, RetryPolicy
from backends.remote.filesystem import RemoteFS, check_available, default_retry, prepare
from backends.remote.source_backend import SourceBackend
from backends.remote.urls import SourceSpec, parse_source
from backends.resource import AsyncResource


class StoreBackend(AsyncResource):
    """Skills on storage fsspec opens; the storage is opened on first use, reopened after close.

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
        UnsupportedSourceError: fsspec knows no filesystem for the URL, or the backend does
            not serve what it names.
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
        self._deadline = Deadline(timeout)
        self._spec = parse_source(url)
        self._redact = Redactor.for_source(url, storage_options)
        self._location = self._redact.url(url)
        self._check_kind(self._spec)
        check_available(self._spec, location=self._location)
        self._target, self._options = prepare(self._spec.target, storage_options, timeout=timeout)
        self._retry = retry or default_retry(self._spec.protocol)
        self._limits = limits
        self._max_concurrency = max_concurrency
        self._served: Backend | None = None
        self._imported: bytes | None = None  # another process's state, for the next opening
        self._opening = asyncio.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._location!r})"

    @property
    def location(self) -> str:
        """The URL, with any password in it hidden."""
        return self._location

    @property
    def timeout(self) -> float | None:
        """Seconds one storage operation may take, retries included (``None``: no deadline)."""
        return self._deadline.timeout

    @property
    def is_bundle(self) -> bool:
        """True when the URL names a zip bundle."""
        return self._spec.bundle

    async def list(self) -> Sequence[SkillRef]:
        """List the storage once and return every skill, refused ones with their reason."""
        return await (await self._opened()).list()

    async def get(self, name: str) -> SkillDocument:
        """Fetch one SKILL.md (listing first when the name is not known yet)."""
        return await (await self._opened()).get(name)

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Fetch several SKILL.md files concurrently, in order; failures are returned."""
        return await fetch_many(await self._opened(), names)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """A skill's visible files."""
        return await (await self._opened()).files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read one file of a skill, refusing oversize ones unread."""
        return await (await self._opened()).read(name, path, max_bytes=max_bytes)

    def export_state(self) -> bytes | None:
        """What the source served exports (a published index, a bundle), if anything."""
        return export_state(self._served)

    def import_state(self, state: bytes) -> None:
        """Keep another process's state for the source served when the storage is opened."""
        if self._served is None:
            self._imported = state

    async def aclose(self) -> None:
        """Close the storage's connections; a later call opens them again."""
        async with self._opening:
            served, self._served = self._served, None
        if served is not None:
            await served.aclose()

    async def skill_folders_elsewhere(self) -> Sequence[str]:
        """Folders of the last listing that hold a SKILL.md but are no skill here.

        See :meth:`SourceBackend.skill_folders_elsewhere`; a published index has none.
        """
        served = await self._opened()
        return await served.skill_folders_elsewhere() if isinstance(served, SourceBackend) else ()

    def _check_kind(self, spec: SourceSpec) -> None:
        """Refuse, before any I/O, a URL naming what this backend does not serve."""

    @abstractmethod
    async def _serve(self, fs: RemoteFS, location: str, imported: bytes | None) -> Backend:
        """What serves the opened storage; it takes ``fs`` over, to close it.

        Args:
            fs: The storage, opened at the URL's target.
            location: The target's URL (any password hidden), for messages.
            imported: A state another process exported, given to what serves afterwards.
        """

    def _bundle(self, fs: RemoteFS, location: str) -> SourceBackend:
        """The zip bundle at the target."""
        source = BundleSource(
            fs,
            inner_root=self._spec.inner_root,
            limits=self._limits,
            location=location,
            concurrency=self._max_concurrency,
        )
        return SourceBackend(source, location=self._location)

    async def _opened(self) -> Backend:
        async with self._opening:
            if self._served is None:
                location = self._redact.url(self._spec.target)
                fs = await RemoteFS.open(
                    self._target,
                    self._options,
                    location=location,
                    redact=self._redact,
                    retry=self._retry,
                    deadline=self._deadline,
                )
                imported, self._imported = self._imported, None
                self._served = await self._serve(fs, location, imported)
                import_state(self._served, imported)
            return self._served
