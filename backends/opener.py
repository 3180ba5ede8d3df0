"""Turn a path or URL into the backend that serves it."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlsplit

from backends.base import Backend
from backends.errors import UnsupportedSourceError
from backends.local import LocalBackend
from backends.memory import MemoryBackend
from backends.remote.urls import check_names_something, is_zip_path, protocol_of


def open_backend(source: str | os.PathLike[str], **storage_options: Any) -> Backend:
    """Open the backend for ``source``.

    Folder paths and ``file://`` folder URLs give a :class:`LocalBackend`; ``memory:`` gives
    a fresh, empty, instance-owned :class:`MemoryBackend`; an ``http(s)://`` URL that names no
    ``.zip`` gives an :class:`HttpIndexBackend` reading the site's well-known skills index
    (``https://example.com`` reads ``/.well-known/agent-skills/index.json``). Everything else
    -- ``s3://``, ``gs://``, ``github://``, a ``.zip`` path or URL, chained ``zip://::s3://…``
    -- gives an :class:`FsspecBackend`, with fsspec's registry resolving the scheme.

    ``memory://`` is refused: it is fsspec's one store for the whole process, shared by every
    catalog that opens it, and one character must not decide that. Share it on purpose with
    ``FsspecBackend("memory://…")``.

    Args:
        source: A folder path, a bundle path or a URL.
        **storage_options: Options for the fsspec filesystem (credentials, endpoints).

    Raises:
        UnsupportedSourceError: The source names nothing (``''``, ``file://``, ``s3://``,
            ``gs://``, ``github://``, ``::``; refused before any request or credential
            lookup), no filesystem handles the scheme, the URL is ``memory://…``, or options
            were given for a local folder or ``memory:``.
        MissingDependencyError: The scheme's optional package is not installed.
    """
    text = os.fspath(source)
    check_names_something(text)
    if text.startswith("memory://"):
        raise UnsupportedSourceError(
            "memory:// is fsspec's process-wide store: use 'memory:' for a store of this "
            "backend's own, or FsspecBackend('memory://…') to share fsspec's on purpose",
            location=text,
        )
    if text.startswith("memory:"):
        _refuse_options(text, storage_options)
        return MemoryBackend()
    if protocol_of(text) == "file" and "::" not in text and not is_zip_path(text):
        _refuse_options(text, storage_options)
        return LocalBackend(unquote(urlsplit(text).path) if text.startswith("file:") else text)
    if protocol_of(text) in ("http", "https") and not is_zip_path(text):
        from backends.index.http import HttpIndexBackend

        return HttpIndexBackend(text, **storage_options)
    from backends.fsspec_backend import FsspecBackend

    return FsspecBackend(text, **storage_options)


def _refuse_options(source: str, storage_options: dict[str, Any]) -> None:
    if storage_options:
        names = ", ".join(sorted(storage_options))
        raise UnsupportedSourceError(
            f"storage options ({names}) apply to remote URLs and bundles only", location=source
        )
