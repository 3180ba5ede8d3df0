"""What each storage protocol needs before a filesystem is built for it.

Pure checks and option tuning, no I/O: whether fsspec knows the protocol and its package is
installed (with the extra to install when not), the options skillfs sets for S3, GitHub and
HTTP, and which retry policy applies.
"""

from __future__ import annotations

import base64
import importlib.util
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from backends.errors import MissingDependencyError, UnsupportedSourceError, install_command
from backends.remote.retry import NO_RETRY, RetryPolicy
from backends.remote.urls import SourceSpec, protocol_of

EXTRAS = {
    "s3": "s3",
    "s3a": "s3",
    "gs": "gcs",
    "gcs": "gcs",
    "github": "github",
    "http": "http",
    "https": "http",
}
"""The skillfs extra that installs each protocol's filesystem."""

_REQUIRES = {
    "s3": "s3fs",
    "s3a": "s3fs",
    "gs": "gcsfs",
    "gcs": "gcsfs",
    "github": "requests",
    "http": "aiohttp",
    "https": "aiohttp",
}
S3_PROTOCOLS = frozenset({"s3", "s3a"})
GCS_PROTOCOLS = frozenset({"gs", "gcs"})
_SELF_RETRYING = GCS_PROTOCOLS
_HTTP = frozenset({"http", "https"})
_LOCAL = frozenset({"file", "local"})


def check_available(spec: SourceSpec, *, location: str) -> None:
    """Refuse, without importing anything, a protocol fsspec lacks or whose package is absent.

    Raises:
        UnsupportedSourceError: fsspec knows no such protocol, or an HTTP URL names a folder
            (HTTP has no listing that could fingerprint one: serve a zip bundle instead).
        MissingDependencyError: The protocol's package is not installed.
    """
    from fsspec.registry import known_implementations, registry

    if spec.protocol in _HTTP and not spec.bundle:
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
        package = _REQUIRES.get(protocol)
        if package is not None and not _importable(package):
            raise MissingDependencyError(install_hint(protocol), location=location)


def install_hint(protocol: str) -> str:
    """What to install for ``protocol``, naming the skillfs extra when there is one."""
    from fsspec.registry import known_implementations

    extra = EXTRAS.get(protocol)
    if extra is not None:
        return f"{protocol}:// needs an optional package: {install_command(extra)}"
    known = known_implementations.get(protocol, {})
    return str(known.get("err") or f"cannot load the filesystem for {protocol}:// URLs")


def prepare(
    url: str, options: Mapping[str, Any], *, timeout: float | None = None
) -> tuple[str, dict[str, Any]]:
    """The URL and options to open, with what skillfs needs unless the caller chose otherwise.

    Every backend gets its own filesystem instance (``skip_instance_cache``), so tuning it
    never changes one the application shares. For S3: botocore's retry loop off (skillfs's
    is the one layer; s3fs's own loop is turned off when the filesystem is built), and
    ``max_concurrency=1`` so a GET is never preceded by a HEAD for the object's size. For
    GitHub: each request's timeout is the backend's ``timeout``, because its requests run in
    worker threads that a deadline cannot cancel (GithubFileSystem waits 60 s by default). For
    HTTP: a ``user:password@`` in the URL moves into an ``Authorization`` header, because
    fsspec prints URLs in its errors and debug logs.
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
    if protocol in _HTTP and parts.password is not None:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password)}".encode()
        client = dict(merged.get("client_kwargs") or {})
        headers = {"Authorization": f"Basic {base64.b64encode(pair).decode()}"}
        client["headers"] = {**headers, **(client.get("headers") or {})}
        merged["client_kwargs"] = client
        url = urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return url, merged


def default_retry(protocol: str) -> RetryPolicy:
    """The retry policy for ``protocol``: none where the filesystem insists on its own."""
    return NO_RETRY if protocol in _SELF_RETRYING else RetryPolicy()


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
