"""Turn a path or URL into the backend that serves it: one table of schemes, then fsspec.

The table maps schemes to factories called as ``factory(url, **storage_options)``: the
built-ins, :func:`register_backend`'s, and the ``skillfs.backends`` entry points, read for a
scheme fsspec does not know either. Every other URL goes to fsspec.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any
from urllib.parse import unquote, urlsplit

from backends._base import Backend
from backends._errors import UnsupportedSourceError
from backends._local import LocalBackend
from backends._memory import MemoryBackend
from backends._remote.urls import check_names_something, is_zip_path, parse_source, protocol_of

ENTRY_POINT_GROUP = "skillfs.backends"

BackendFactory = Callable[..., Backend]  # factory(url, **storage_options)


def open_backend(source: str | os.PathLike[str], **storage_options: Any) -> Backend:
    """Open the backend for ``source``, decided from the URL alone; the caller closes it.

    Which backend serves which source: docs/backends.md (MCP sources: docs/mcp.md).

    Raises:
        UnsupportedSourceError: The source names nothing, no backend handles its scheme, it
            is ``memory://…``, options were given for a local folder or ``memory:``, or an
            entry point failed to load.
        MissingDependencyError: The scheme's optional package is not installed.
    """
    text = os.fspath(source)
    check_names_something(text)
    scheme = "memory" if text.startswith("memory:") else protocol_of(text)
    return (backend_factory(scheme) or _open_with_fsspec)(text, **storage_options)


def register_backend(scheme: str, factory: BackendFactory, *, clobber: bool = False) -> None:
    """Make ``open_backend("<scheme>://…")`` call ``factory(url, **storage_options)``.

    It wins over fsspec's scheme; ValueError when one is taken and ``clobber`` is false.
    """
    key = scheme.lower()
    taken = _SCHEMES.get(key, factory)
    if taken is not factory and not clobber:
        raise ValueError(f"{scheme}:// already has a backend; pass clobber=True to replace it")
    _SCHEMES[key] = factory


def backend_factory(scheme: str) -> BackendFactory | None:
    """The factory for ``scheme`` from the table or an entry point; ``None`` leaves it to fsspec."""
    key = scheme.lower()
    factory = _SCHEMES.get(key)
    if factory is not None or _is_filesystem(key):
        return factory
    entry = next((e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name.lower() == key), None)
    if entry is None:
        return None
    loaded = _load(entry)
    register_backend(key, loaded, clobber=True)
    return loaded


def _load(entry: EntryPoint) -> BackendFactory:
    try:
        loaded: BackendFactory = entry.load()
    except Exception as exc:  # an import error or anything the module raises
        raise UnsupportedSourceError(
            f"the {entry.name}:// backend {entry.value!r} (entry point in "
            f"{ENTRY_POINT_GROUP!r}) failed to load: {exc}"
        ) from exc
    return loaded


def _is_filesystem(scheme: str) -> bool:
    from fsspec.registry import known_implementations, registry

    return scheme in registry or scheme in known_implementations


def _open_with_fsspec(url: str, **storage_options: Any) -> Backend:
    from backends._fsspec_backend import BundleBackend, FsspecBackend

    kind = BundleBackend if parse_source(url).bundle else FsspecBackend
    return kind(url, **storage_options)


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
    from backends._index.http import HttpIndexBackend

    return HttpIndexBackend(url, **storage_options)


def _open_mcp(url: str, **options: Any) -> Backend:
    from backends._mcp.backend import open_url  # needs the MCP SDK: imported for mcp+ URLs only

    return open_url(url, **options)


def _refuse_options(source: str, storage_options: dict[str, Any]) -> None:
    if storage_options:
        names = ", ".join(sorted(storage_options))
        raise UnsupportedSourceError(
            f"storage options ({names}) apply to remote URLs and bundles only", location=source
        )


_SCHEMES: dict[str, BackendFactory] = {
    "file": _open_local,
    "memory": _open_memory,
    "http": _open_http,
    "https": _open_http,
    "mcp+http": _open_mcp,
    "mcp+https": _open_mcp,
    "mcp+stdio": _open_mcp,
}
