"""The one module that drives fsspec: what a protocol needs, building a filesystem, calling it.

fsspec is imported on first use and builds in a worker thread. Native-async filesystems (s3fs,
gcsfs, http) run on fsspec's own loop, which outlives a caller's loop; sync ones through
``AsyncFileSystemWrapper``. Every call goes through one deadline, one retry layer and one
translation of foreign errors (:mod:`backends._remote.failures`).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import importlib.util
import os
import urllib.request
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

from backends._errors import (
    LimitExceededError,
    MissingDependencyError,
    ResourceNotFoundError,
    StorageError,
    UnsupportedSourceError,
    install_command,
)
from backends._remote.failures import (
    DEFAULT_TIMEOUT,
    NO_RETRY,
    Deadline,
    IncompleteReadError,
    RangesIgnoredError,
    Redactor,
    RetryPolicy,
    raise_translated,
    retrying,
)
from backends._remote.urls import WEB, SourceSpec, last_link, protocol_of

T = TypeVar("T")

_NEEDS = {  # the skillfs extra that installs each protocol's filesystem, and a module of it
    "s3": ("s3", "s3fs"),
    "s3a": ("s3", "s3fs"),
    "gs": ("gcs", "gcsfs"),
    "gcs": ("gcs", "gcsfs"),
    "github": ("github", "requests"),
    "http": ("http", "aiohttp"),
    "https": ("http", "aiohttp"),
}
S3_PROTOCOLS = frozenset({"s3", "s3a"})
GCS_PROTOCOLS = frozenset({"gs", "gcs"})
_LOCAL = frozenset({"file", "local"})
_PARTIAL_CONTENT = 206

NO_GCS_CREDENTIALS = (
    "no Google credentials found: set GOOGLE_APPLICATION_CREDENTIALS to a key file, run "
    "'gcloud auth application-default login', or set FSSPEC_GS_TOKEN=anon for a public bucket"
)
METADATA_TIMEOUT = 0.5  # seconds to wait for Google Cloud's metadata server, asked once
_METADATA_IP = "169.254.169.254"
_DMI_PRODUCT_NAME = "/sys/class/dmi/id/product_name"


class RemoteFS:
    """One opened fsspec filesystem (:meth:`open`): typed, non-blocking, retried, translated."""

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
        self.path = str(path)  # what the URL named, on the filesystem
        protocol = fs.protocol
        self.protocol = str(protocol if isinstance(protocol, str) else protocol[0])
        self._redact = redact
        self._retry = retry
        self._deadline = deadline
        if wrapper is None:  # a session on fsspec's loop: close it there, never blocking
            from fsspec.asyn import get_loop

            self._loop: asyncio.AbstractEventLoop = fs.loop or get_loop()
            weakref.finalize(self, _close_soon, self._loop, fs)

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

        MissingDependencyError when the protocol's package is absent; else StorageError.
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

    async def find(self, root: str, *, location: str) -> Mapping[str, Mapping[str, Any]]:
        """Every file below ``root`` with its details, in one recursive listing."""
        self._fs.invalidate_cache(root)
        if self.protocol == "github":
            return await self._guarded(
                lambda: asyncio.to_thread(_github_tree, self._fs, root), location=location
            )
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
        """One whole file in one GET; not ``size`` bytes long (when given): IncompleteReadError."""

        async def attempt() -> bytes:
            data = bytes(await self._attempt("cat_file", path))
            return IncompleteReadError.check(data, size, location=location)

        return await self._guarded(attempt, location=location, missing=missing, size=size)

    async def cat_range(
        self, path: str, start: int, end: int, *, location: str, whole: int | None = None
    ) -> bytes:
        """Bytes ``[start, end)`` of one file in one ranged GET (any other length: incomplete).

        ``whole`` (the file's size) accepts a whole-file answer; else it is a RangesIgnoredError.
        """

        async def attempt() -> bytes:
            if self.protocol == "http":
                data = await self._on_its_loop(
                    lambda fs: _http_range(
                        fs, path, start, end, whole_up_to=whole or 0, location=location
                    )
                )
            else:
                data = bytes(await self._attempt("cat_file", path, start=start, end=end))
            if whole is not None and len(data) == whole:
                return data
            return IncompleteReadError.check(data, end - start, location=location, ranged=True)

        most = end - start if whole is None else whole
        return await self._guarded(attempt, location=location, size=most)

    async def pipe(self, path: str, data: bytes, *, location: str) -> None:
        """Create or replace one file."""
        await self._guarded(
            lambda: self._attempt("pipe_file", path, data), location=location, size=len(data)
        )

    async def remove(self, path: str, *, location: str) -> None:
        """Delete one file (ResourceNotFoundError when there is none)."""
        await self._call("rm_file", path, location=location, missing=ResourceNotFoundError)

    async def aclose(self) -> None:
        """Close the filesystem's HTTP session, if it holds one, on the loop it belongs to."""
        closing = _session_closing(self._fs) if self._wrapper is None else None
        if closing is not None:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(closing, self._loop))

    async def run(
        self,
        work: Callable[[Any], Coroutine[Any, Any, T]],
        *,
        location: str,
        missing: type[StorageError] = StorageError,
    ) -> T:
        """Run ``work(fs)`` on the filesystem's loop (a sync one's wrapper), retried and bounded."""
        return await self._guarded(
            lambda: self._on_its_loop(work), location=location, missing=missing
        )

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
        def work(fs: Any) -> Coroutine[Any, Any, Any]:
            return getattr(fs, f"_{method}")(*args, **kwargs)  # type: ignore[no-any-return]

        return await self._on_its_loop(work)

    async def _on_its_loop(self, work: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
        if self._wrapper is not None:
            return await work(self._wrapper)
        return await asyncio.wrap_future(
            asyncio.run_coroutine_threadsafe(work(self._fs), self._loop)
        )

    async def _guarded(
        self,
        attempt: Callable[[], Awaitable[T]],
        *,
        location: str,
        missing: type[StorageError] = StorageError,
        size: int | None = None,
    ) -> T:
        try:
            async with self._deadline.bounded(location=location, size=size):
                return await retrying(self._retry, attempt)
        except Exception as exc:
            raise_translated(exc, location=location, redact=self._redact, missing=missing)


class Reopening:
    """The :class:`RemoteFS` of ``spec``, opened on first use (:meth:`get`), again once closed.

    Refuses at once what cannot be opened (:func:`check_available`); opens with skillfs's
    defaults (:func:`prepare`, :func:`default_retry`) within one :class:`Deadline`.
    """

    def __init__(
        self,
        spec: SourceSpec,
        storage_options: Mapping[str, Any],
        *,
        redact: Redactor,
        location: str,
        retry: RetryPolicy | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        self.deadline = Deadline(timeout)
        check_available(spec, location=location)
        self.url, self.options = prepare(spec.target, storage_options, timeout=timeout)
        self._open = functools.partial(
            RemoteFS.open,
            location=location,
            redact=redact,
            retry=retry or default_retry(spec.protocol),
            deadline=self.deadline,
        )
        self.fs: RemoteFS | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> RemoteFS:
        """The filesystem, opened now if it is not."""
        async with self._lock:
            if self.fs is None:
                self.fs = await self._open(self.url, self.options)
            return self.fs

    async def aclose(self) -> None:
        """Close the filesystem's session, if it is open."""
        async with self._lock:
            fs, self.fs = self.fs, None
        if fs is not None:
            await fs.aclose()


def check_available(spec: SourceSpec, *, location: str) -> None:
    """Refuse, without importing it, a protocol fsspec lacks or whose package is absent.

    UnsupportedSourceError for an unknown protocol or an HTTP folder, else MissingDependencyError.
    """
    from fsspec.registry import known_implementations, registry

    if spec.protocol in WEB and not spec.bundle:
        raise UnsupportedSourceError(
            "http(s) URLs must name a .zip bundle: HTTP has no listing to fingerprint a folder "
            "(HttpIndexBackend, which open_backend gives, reads a site's well-known index)",
            location=location,
        )
    for protocol in spec.protocols:
        if protocol in _LOCAL:
            continue
        if protocol not in registry and protocol not in known_implementations:
            raise UnsupportedSourceError(
                f"no backend or filesystem for {protocol}:// URLs (add one with "
                "backends.register_backend or a 'skillfs.backends' entry point)",
                location=location,
            )
        _, package = _NEEDS.get(protocol, ("", ""))
        if package and not _importable(package):
            raise MissingDependencyError(install_hint(protocol), location=location)


def install_hint(protocol: str) -> str:
    """What to install for ``protocol``, naming the skillfs extra when there is one."""
    from fsspec.registry import known_implementations

    extra, _ = _NEEDS.get(protocol, ("", ""))
    if extra:
        return f"{protocol}:// needs an optional package: {install_command(extra)}"
    known = known_implementations.get(protocol, {})
    return str(known.get("err") or f"cannot load the filesystem for {protocol}:// URLs")


def prepare(
    url: str, options: Mapping[str, Any], *, timeout: float | None = None
) -> tuple[str, dict[str, Any]]:
    """The URL and options to open, with skillfs's defaults where the caller chose none.

    A filesystem of its own per backend; S3 without botocore's retries or a HEAD before a GET;
    GitHub requests bounded by ``timeout``; an HTTP URL's password moved into a header.
    """
    protocol = protocol_of(url)
    merged: dict[str, Any] = {"skip_instance_cache": True, **options}
    if protocol == "github" and timeout is not None:
        merged.setdefault("timeout", timeout)
    if protocol in S3_PROTOCOLS:
        merged.setdefault("max_concurrency", 1)
        config = dict(merged.get("config_kwargs") or {})
        config.setdefault("retries", {"mode": "standard", "total_max_attempts": 1})
        merged["config_kwargs"] = config
    parts = urlsplit(url)
    if protocol in WEB and parts.password is not None:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password)}".encode()
        client = dict(merged.get("client_kwargs") or {})
        headers = {"Authorization": f"Basic {base64.b64encode(pair).decode()}"}
        client["headers"] = {**headers, **(client.get("headers") or {})}
        merged["client_kwargs"] = client
        url = urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return url, merged


def default_retry(protocol: str) -> RetryPolicy:
    """The retry policy for ``protocol``: none for GCS, whose client always retries."""
    return NO_RETRY if protocol in GCS_PROTOCOLS else RetryPolicy()


def with_credentials(options: Mapping[str, Any], *, location: str) -> dict[str, Any]:
    """``options`` for gcsfs, with ``token="google_default"`` when the caller chose none.

    With no token chosen and no credentials where google-auth would look, StorageError at
    once instead of gcsfs's 15-20 s timeout (blocking: worker threads).
    """
    from fsspec.config import conf

    if "token" in options or any("token" in conf.get(p, {}) for p in GCS_PROTOCOLS):
        return dict(options)
    if not _default_credentials_exist():
        raise StorageError(NO_GCS_CREDENTIALS, location=location)
    return {**options, "token": "google_default"}


def _build(url: str, options: dict[str, Any], location: str) -> tuple[Any, Any, str]:
    from fsspec.core import url_to_fs
    from fsspec.implementations.asyn_wrapper import AsyncFileSystemWrapper
    from fsspec.implementations.local import LocalFileSystem
    from fsspec.registry import get_filesystem_class

    from backends._remote.local_reads import RegularLocalFileSystem

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


def _github_tree(fs: Any, root: str) -> dict[str, dict[str, Any]]:
    """Every file below ``root`` at the GithubFileSystem's ref, in one trees request (blocking).

    FileNotFoundError: no such repository or ref; LimitExceededError: GitHub truncated it.
    """
    import requests

    url = fs.url.format(org=fs.org, repo=fs.repo, sha=fs.root)
    response = requests.get(url, params={"recursive": "1"}, timeout=fs.timeout, **fs.kw)
    if response.status_code == 404:
        raise FileNotFoundError(f"{fs.org}/{fs.repo}@{fs.root}")
    response.raise_for_status()
    body = response.json()
    if body.get("truncated"):
        raise LimitExceededError(
            "GitHub truncated the tree listing (over 100,000 entries or 7 MB)",
            location=f"github://{fs.org}:{fs.repo}@{fs.root}",
        )
    prefix = f"{root.strip('/')}/" if root.strip("/") else ""
    return {
        entry["path"]: {
            "name": entry["path"],
            "size": entry.get("size", 0),
            "type": "file",
            "sha": entry["sha"],
            "mode": entry.get("mode", ""),
        }
        for entry in body.get("tree", ())
        if entry.get("type") == "blob" and entry["path"].startswith(prefix)
    }


async def _http_range(
    fs: Any, url: str, start: int, end: int, *, whole_up_to: int, location: str
) -> bytes:
    """Bytes ``[start, end)`` of ``url``; a whole file only up to ``whole_up_to`` bytes."""
    if start >= end:
        return b""
    options = dict(fs.kwargs)
    headers = {**options.pop("headers", {}), "Range": f"bytes={start}-{end - 1}"}
    session = await fs.set_session()
    async with session.get(fs.encode_url(url), headers=headers, **options) as response:
        fs._raise_not_found_for_status(response, url)
        if response.status == _PARTIAL_CONTENT:
            return bytes(await response.read())
        declared = response.content_length
        if declared is not None and declared > whole_up_to:
            raise _ranges_ignored(start, end, declared, location)
        chunks: list[bytes] = []
        received = 0
        async for chunk in response.content.iter_any():
            received += len(chunk)
            if received > whole_up_to:
                raise _ranges_ignored(start, end, None, location)
            chunks.append(chunk)
        return b"".join(chunks)


def _ranges_ignored(start: int, end: int, size: int | None, location: str) -> RangesIgnoredError:
    sent = "the whole file" if size is None else f"the whole {size}-byte file"
    return RangesIgnoredError(
        f"the server does not answer ranged requests: asked for bytes {start}-{end - 1}, "
        f"it sent {sent}",
        location=location,
    )


def _session_closing(fs: Any) -> Coroutine[Any, Any, Any] | None:
    session = getattr(fs, "_session", None)  # http, gcsfs
    if session is not None and not session.closed:
        return session.close()  # type: ignore[no-any-return]
    creator = getattr(fs, "_s3creator", None)  # s3fs
    if creator is not None:
        fs._s3creator = fs._s3 = None
        return creator.__aexit__(None, None, None)  # type: ignore[no-any-return]
    return None


_CLOSING: set[asyncio.Future[Any]] = set()  # closes scheduled by finalizers (tasks held weakly)


def _close_soon(loop: asyncio.AbstractEventLoop, fs: Any) -> None:
    """Schedule the close of a dropped filesystem's session on ``loop``, never waiting."""
    if loop.is_running() and not loop.is_closed():
        loop.call_soon_threadsafe(_start_closing, fs)


def _start_closing(fs: Any) -> None:
    closing = _session_closing(fs)
    if closing is not None:
        task = asyncio.ensure_future(closing)
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _default_credentials_exist() -> bool:
    """True where google-auth's default chain would find credentials (its order, its names)."""
    if os.environ.get("GOOGLE_APPLICATION_CREDENTIALS"):
        return True  # a missing or broken file is google-auth's to report
    configured = os.environ.get("CLOUDSDK_CONFIG")
    if not configured and os.name == "nt":
        configured = os.path.join(os.environ.get("APPDATA", ""), "gcloud")
    folder = configured or os.path.join(os.path.expanduser("~"), ".config", "gcloud")
    if os.path.isfile(os.path.join(folder, "application_default_credentials.json")):
        return True
    return _on_google_cloud()


def _on_google_cloud() -> bool:
    """True on Compute Engine (DMI product name) or where its metadata server answers."""
    if os.environ.get("NO_GCE_CHECK") == "true":
        return False
    try:
        with open(_DMI_PRODUCT_NAME) as product:
            if product.read().startswith("Google"):
                return True
    except OSError:
        pass
    host = os.environ.get("GCE_METADATA_IP", _METADATA_IP)
    request = urllib.request.Request(f"http://{host}/", headers={"Metadata-Flavor": "Google"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=METADATA_TIMEOUT) as response:
            return bool(response.headers.get("Metadata-Flavor") == "Google")
    except (OSError, ValueError):  # refused, unreachable, timed out, an HTTP error status
        return False
