"""Turn a path or URL into the backend that serves it."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlsplit

from backends.base import Backend
from backends.errors import UnsupportedSourceError
from backends.local import LocalBackend
from backends.memory import MemoryBackend
from backends.remote.urls import check_names_something, is_zip_path, parse_source, protocol_of
from backends.schemes import backend_factory


def open_backend(source: str | os.PathLike[str], **storage_options: Any) -> Backend:
    """Open the backend for ``source``; the caller owns it and closes it (``async with``).

    The URL's scheme picks a factory in :mod:`backends.schemes`, whose table of built-in
    schemes names this module's ``_open_*`` functions. Folder paths and ``file://`` folder
    URLs give a :class:`LocalBackend`; ``memory:`` gives a fresh, empty, instance-owned
    :class:`MemoryBackend`; an ``http(s)://`` URL that names no ``.zip`` gives an
    :class:`HttpIndexBackend` reading the site's well-known skills index
    (``https://example.com`` reads ``/.well-known/agent-skills/index.json``). A scheme given to
    :func:`~backends.schemes.register_backend` or declared by an installed distribution's
    ``skillfs.backends`` entry point gives that backend. Everything else goes to fsspec, whose
    registry resolves the scheme: a ``.zip`` path or URL and a chained ``zip://::s3://…`` give
    a :class:`BundleBackend`, any other URL (``s3://``, ``gs://``, ``github://``, …) a folder's
    :class:`FsspecBackend`.

    ``memory://`` is refused: it is fsspec's one store for the whole process, shared by every
    catalog that opens it, and one character must not decide that. Share it on purpose with
    ``FsspecBackend("memory://…")``.

    Args:
        source: A folder path, a bundle path or a URL.
        **storage_options: Options for the fsspec filesystem (credentials, endpoints), or
            for a registered backend's factory.

    Raises:
        UnsupportedSourceError: The source names nothing (``''``, ``file://``, ``s3://``,
            ``gs://``, ``github://``, ``::``; refused before any request or credential
            lookup), no backend or filesystem handles the scheme, the URL is ``memory://…``,
            options were given for a local folder or ``memory:``, or a scheme's entry point
            failed to load.
        MissingDependencyError: The scheme's optional package is not installed.
    """
    text = os.fspath(source)
    check_names_something(text)
    scheme = "memory" if text.startswith("memory:") else protocol_of(text)
    factory = backend_factory(scheme) or _open_with_fsspec
    return factory(text, **storage_options)


def _open_with_fsspec(url: str, **storage_options: Any) -> Backend:
    """A bundle's or a folder's backend, told apart from the URL alone."""
    if parse_source(url).bundle:
        from backends.bundle_backend import BundleBackend

        return BundleBackend(url, **storage_options)
    from backends.fsspec_backend import FsspecBackend

    return FsspecBackend(url, **storage_options)


def _open_local(path: str, **storage_options: Any) -> Backend:
    if "::" in path or is_zip_path(path):
        return _open_with_fsspec(path, **storage_options)
    _refuse_options(path, storage_options)
    return LocalBackend(unquote(urlsplit(path).path) if path.startswith("file:") else path)


def _open_memory(url: str, **storage_options: Any) -> Backend:
    if url.startswith("memory://"):
        raise UnsupportedSourceError(
            "memory:// is fsspec's process-wide store: use 'memory:' for a store of this "
            "backend's own, or FsspecBackend('memory://…') to share fsspec's on purpose",
            location=url,
        )
    _refuse_options(url, storage_options)
    return MemoryBackend()


def _open_http(url: str, **storage_options: Any) -> Backend:
    if is_zip_path(url):
        return _open_with_fsspec(url, **storage_options)
    from backends.index.http import HttpIndexBackend

    return HttpIndexBackend(url, **storage_options)


def _refuse_options(source: str, storage_options: dict[str, Any]) -> None:
    if storage_options:
        names = ", ".join(sorted(storage_options))
        raise UnsupportedSourceError(
            f"storage options ({names}) apply to remote URLs and bundles only", location=source
        )
