"""The one module that drives fsspec: building a filesystem and calling it without blocking.

What a protocol needs before it is built is :mod:`backends.remote.protocols`; closing its
session is :mod:`backends.remote.sessions`; a ranged GET on HTTP, whose server may ignore the
range, is :mod:`backends.remote.http_ranges`.

``fsspec.core.url_to_fs`` resolves the scheme through fsspec's own registry, so any installed
fsspec implementation works. Opening runs in a worker thread: GitHub's constructor makes a
request, and others read configuration files.

Native-async filesystems (s3fs, gcsfs, http; ``fs.async_impl``) are driven through their
coroutines, run on the event loop they were built for -- fsspec's I/O loop -- while the caller
awaits the result on its own loop. Their setup is not loop-safe: s3fs's ``set_session`` reads
botocore's config and model files synchronously (measured with blockbuster), and gcsfs refreshes
tokens with blocking requests; neither must ever stall the caller's loop, and sessions bound to
fsspec's long-lived loop never die with a short-lived caller loop. Sync filesystems (GitHub,
memory, local) run through fsspec's ``AsyncFileSystemWrapper``, one worker thread per call.

fsspec itself is imported on first use, keeping it off the import path of the CLI and of
local-only programs. Every call goes through one deadline (:mod:`backends.remote.deadline`),
one retry layer (:mod:`backends.remote.retry`) and one translation of foreign errors
(:mod:`backends.remote.foreign_errors`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar

from backends.errors import MissingDependencyError, ResourceNotFoundError, StorageError
from backends.remote.deadline import Deadline
from backends.remote.foreign_errors import IncompleteReadError, Redactor, raise_translated
from backends.remote.gcs_credentials import with_credentials
from backends.remote.github import recursive_tree
from backends.remote.http_ranges import fetch_range
from backends.remote.protocols import GCS_PROTOCOLS, S3_PROTOCOLS, install_hint
from backends.remote.retry import RetryPolicy, retrying
from backends.remote.sessions import close_soon, io_loop, session_closing
from backends.remote.urls import last_link, protocol_of

T = TypeVar("T")


class RemoteFS:
    """One opened fsspec filesystem with typed, non-blocking, retried and translated calls.

    Build it with :meth:`open`. Paths are the filesystem's own (``bucket/key`` for S3).
    """

    def __init__(
        self,
        fs: Any,
        wrapper: Any,
        path: str,
        *,
        redact: Redactor,
        retry: RetryPolicy,
        deadline: Deadline,
    ) -> None:
        self._fs = fs
        self._wrapper = wrapper
        self._path = path
        self._redact = redact
        self._retry = retry
        self._deadline = deadline
        if wrapper is None:  # a session on fsspec's loop: close it there, never blocking
            self._loop = io_loop(fs)
            weakref.finalize(self, close_soon, self._loop, fs)

    @classmethod
    async def open(
        cls,
        url: str,
        options: Mapping[str, Any],
        *,
        location: str,
        redact: Redactor,
        retry: RetryPolicy,
        deadline: Deadline,
    ) -> RemoteFS:
        """Build the filesystem for ``url`` in a worker thread, within the deadline.

        Raises:
            MissingDependencyError: The protocol's package is not installed.
            StorageError: The filesystem could not be built (bad options, unreachable API).
        """

        async def build() -> tuple[Any, Any, str]:
            return await asyncio.to_thread(_build, url, dict(options), location)

        try:
            async with deadline.bounded(location=location):
                fs, wrapper, path = await retrying(retry, build)
        except ImportError as exc:
            hint = install_hint(protocol_of(last_link(url)))
            raise MissingDependencyError(hint, location=location) from exc
        except Exception as exc:
            raise_translated(exc, location=location, redact=redact)
        return cls(fs, wrapper, path, redact=redact, retry=retry, deadline=deadline)

    @property
    def path(self) -> str:
        """The filesystem path the URL named."""
        return str(self._path)

    @property
    def protocol(self) -> str:
        """The filesystem's main protocol name."""
        protocol = self._fs.protocol
        return str(protocol if isinstance(protocol, str) else protocol[0])

    async def find(self, root: str, *, location: str) -> Mapping[str, Mapping[str, Any]]:
        """Every file below ``root`` with its details, in one recursive listing."""
        self._fs.invalidate_cache(root)
        if self.protocol == "github":
            tree: dict[str, dict[str, Any]] = await self._guarded(
                lambda: asyncio.to_thread(recursive_tree, self._fs, root), location=location
            )
            return tree
        return dict(await self._call("find", root, detail=True, location=location))

    async def info(
        self, path: str, *, location: str, missing: type[StorageError] = StorageError
    ) -> Mapping[str, Any]:
        """Fresh details of one file (a HEAD on object stores), never from a cache."""
        self._fs.invalidate_cache(path)
        return dict(await self._call("info", path, location=location, missing=missing))

    async def cat(
        self,
        path: str,
        *,
        location: str,
        missing: type[StorageError] = StorageError,
        size: int | None = None,
    ) -> bytes:
        """The whole content of one file, in one GET.

        Args:
            path: The file.
            location: Where it is, for messages.
            missing: The error to raise when it does not exist.
            size: The size the listing gave; a read of any other length is an
                :class:`IncompleteReadError`, retried like a dropped connection.
        """

        async def attempt() -> bytes:
            data = bytes(await self._attempt("cat_file", path))
            return IncompleteReadError.check(data, size, location=location)

        data: bytes = await self._guarded(attempt, location=location, missing=missing, size=size)
        return data

    async def cat_range(
        self, path: str, start: int, end: int, *, location: str, whole: int | None = None
    ) -> bytes:
        """Bytes ``[start, end)`` of one file, in one ranged GET.

        Args:
            path: The file.
            start: The first byte wanted.
            end: One past the last byte wanted.
            location: Where it is, for messages.
            whole: The file's size, when the whole file may be returned instead: an HTTP
                server that ignores ``Range`` sends it (:mod:`backends.remote.http_ranges`);
                the caller tells by the length. Without it, such an answer is refused before
                its body is read (:class:`RangesIgnoredError`, not retried).

        Any other length is an :class:`IncompleteReadError`, retried like a dropped connection.
        """

        async def attempt() -> bytes:
            if self.protocol == "http":
                data = await self._on_its_loop(
                    lambda fs: fetch_range(
                        fs, path, start, end, whole_up_to=whole or 0, location=location
                    )
                )
            else:
                data = bytes(await self._attempt("cat_file", path, start=start, end=end))
            if whole is not None and len(data) == whole:
                return data
            return IncompleteReadError.check(data, end - start, location=location, ranged=True)

        most = end - start if whole is None else whole
        data: bytes = await self._guarded(attempt, location=location, size=most)
        return data

    async def pipe(self, path: str, data: bytes, *, location: str) -> None:
        """Create or replace one file."""
        await self._guarded(
            lambda: self._attempt("pipe_file", path, data), location=location, size=len(data)
        )

    async def remove(self, path: str, *, location: str) -> None:
        """Delete one file.

        Raises:
            ResourceNotFoundError: There is no such file.
        """
        await self._call("rm_file", path, location=location, missing=ResourceNotFoundError)

    async def aclose(self) -> None:
        """Close the filesystem's HTTP session, if it holds one, on the loop it belongs to."""
        closing = session_closing(self._fs) if self._wrapper is None else None
        if closing is not None:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(closing, self._loop))

    async def run(
        self,
        work: Callable[[Any], Coroutine[Any, Any, T]],
        *,
        location: str,
        missing: type[StorageError] = StorageError,
    ) -> T:
        """Run ``work(fs)`` with the filesystem's async API, retried, bounded and translated.

        ``fs`` is the native-async filesystem, or the wrapper of a sync one; ``work`` runs on
        the loop the filesystem belongs to.
        """
        result: T = await self._guarded(
            lambda: self._on_its_loop(work), location=location, missing=missing
        )
        return result

    async def _call(
        self,
        method: str,
        *args: Any,
        location: str,
        missing: type[StorageError] = StorageError,
        **kwargs: Any,
    ) -> Any:
        return await self._guarded(
            lambda: self._attempt(method, *args, **kwargs), location=location, missing=missing
        )

    async def _attempt(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """One call of the filesystem's async ``_<method>``, on the loop it belongs to."""

        def work(fs: Any) -> Coroutine[Any, Any, Any]:
            return getattr(fs, f"_{method}")(*args, **kwargs)  # type: ignore[no-any-return]

        return await self._on_its_loop(work)

    async def _on_its_loop(self, work: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
        """``work(fs)`` awaited on the loop the filesystem belongs to."""
        if self._wrapper is not None:
            return await work(self._wrapper)
        return await asyncio.wrap_future(
            asyncio.run_coroutine_threadsafe(work(self._fs), self._loop)
        )

    async def _guarded(
        self,
        attempt: Callable[[], Awaitable[Any]],
        *,
        location: str,
        missing: type[StorageError] = StorageError,
        size: int | None = None,
    ) -> Any:
        """Run ``attempt`` with retries, within the deadline, translating what it raises."""
        try:
            async with self._deadline.bounded(location=location, size=size):
                return await retrying(self._retry, attempt)
        except Exception as exc:
            raise_translated(exc, location=location, redact=self._redact, missing=missing)


def _build(url: str, options: dict[str, Any], location: str) -> tuple[Any, Any, str]:
    """Blocking: resolve ``url`` and wrap a sync filesystem for async use.

    A ``gs://`` URL gets Google's default credentials, or is refused without any
    (:mod:`backends.remote.gcs_credentials`).

    A native-async filesystem is built in asynchronous mode on fsspec's own loop, so it
    registers no finalizer that would close its session synchronously (blocking whichever
    thread collects it): :meth:`RemoteFS.aclose` closes it, or a finalizer of ours that
    only schedules the close.
    """
    from fsspec.core import url_to_fs
    from fsspec.implementations.asyn_wrapper import AsyncFileSystemWrapper
    from fsspec.implementations.local import LocalFileSystem
    from fsspec.registry import get_filesystem_class

    from backends.remote.local_reads import RegularLocalFileSystem

    if "::" not in url and protocol_of(url) in GCS_PROTOCOLS:
        options = with_credentials(options, location=location)
    if "::" not in url and get_filesystem_class(protocol_of(url)).async_impl:
        options = {"asynchronous": True, **options}
    fs, path = url_to_fs(url, **options)
    if type(fs) is LocalFileSystem:
        fs = RegularLocalFileSystem(**fs.storage_options)
    if fs.protocol in S3_PROTOCOLS or (
        isinstance(fs.protocol, tuple) and S3_PROTOCOLS & set(fs.protocol)
    ):
        fs.retries = 1  # s3fs's own retry loop, a class attribute: skillfs retries instead
    wrapper = None if fs.async_impl else AsyncFileSystemWrapper(fs, asynchronous=True)
    return fs, wrapper, path
