"""Turn a path or URL into the backend that serves it."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlsplit

from backends.base import Backend
from backends.errors import UnsupportedSourceError
from backends.local import LocalBackend
from backends.memory import MemoryBackend


def open_backend(source: str | os.PathLike[str], **storage_options: Any) -> Backend:
    """Open the backend for ``source``.

    Paths and ``file://`` URLs give a :class:`LocalBackend`; ``memory:`` gives a fresh,
    empty :class:`MemoryBackend`.

    Args:
        source: A folder path or a URL.
        **storage_options: Options for remote storage (credentials, endpoints).

    Raises:
        UnsupportedSourceError: The scheme is not one skillfs can open.
    """
    text = os.fspath(source)
    scheme = _scheme(text)
    if scheme in ("", "file"):
        _refuse_options(text, storage_options)
        return LocalBackend(unquote(urlsplit(text).path) if scheme == "file" else text)
    if scheme == "memory":
        _refuse_options(text, storage_options)
        return MemoryBackend()
    raise UnsupportedSourceError(f"no backend for {scheme}:// URLs", location=text)


def _scheme(text: str) -> str:
    if text.startswith("memory:"):
        return "memory"
    if "://" not in text:
        return ""
    return text.split("://", 1)[0].lower()


def _refuse_options(source: str, storage_options: dict[str, Any]) -> None:
    if storage_options:
        names = ", ".join(sorted(storage_options))
        raise UnsupportedSourceError(
            f"storage options ({names}) apply to remote URLs only", location=source
        )
