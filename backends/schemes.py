"""Which backend serves a URL scheme: :func:`register_backend`, built-ins, then entry points.

fsspec resolves storage (``s3://``, ``gs://``, ``github://``, chained ``zip://…::s3://…``)
and stays the resolver for every scheme nobody registered here; this registry is for sources
that are not filesystems at all (a database, an API), which fsspec cannot serve. It works as
fsspec's own does: a program calls ``register_backend("x", factory)`` (any scheme, fsspec's
included), a distribution declares an entry point in the ``skillfs.backends`` group
(``x = package.module:factory``) for a scheme fsspec has no filesystem for. The group is read
once, when such a scheme is first asked for, and only that scheme's entry point is loaded, so
a program opening folders and buckets never reads package metadata.

The built-in schemes are a table of names here (``file``, ``memory``, ``http``, ``https``, and
``mcp+http``, ``mcp+https``, ``mcp+stdio`` for MCP servers), their factories imported by name
when first asked for, so the registry holds them whatever is imported first and never imports
the opener that uses it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from backends.base import Backend
from backends.errors import UnsupportedSourceError

ENTRY_POINT_GROUP = "skillfs.backends"

BackendFactory = Callable[..., Backend]
"""Called as ``factory(url, **storage_options)``; a backend class with that signature is one."""

_BUILT_IN = {
    "file": "backends.opener:_open_local",
    "memory": "backends.opener:_open_memory",
    "http": "backends.opener:_open_http",
    "https": "backends.opener:_open_http",
    "mcp+http": "backends.mcp.backend:open_url",
    "mcp+https": "backends.mcp.backend:open_url",
    "mcp+stdio": "backends.mcp.backend:open_url",
}
"""The built-in schemes' factories as ``module:name``; ``register_backend`` replaces one only
with ``clobber=True``."""

_factories: dict[str, BackendFactory] = {}
_entry_points: dict[str, EntryPoint] | None = None
_lock = threading.Lock()


def register_backend(scheme: str, factory: BackendFactory, *, clobber: bool = False) -> None:
    """Make ``open_backend("<scheme>://…")`` call ``factory(url, **storage_options)``.

    Also reaches every place that opens a URL: ``skillfs list URL``, ``with_skills``, a
    registry's ``discover``. A scheme registered here wins over fsspec's of the same name; a
    built-in one (``file``, ``memory``, ``http(s)``, ``mcp+…``) is replaced only with
    ``clobber=True``.

    Raises:
        ValueError: ``scheme`` has another factory already (or is built in) and ``clobber``
            is false.
    """
    key = scheme.lower()
    with _lock:
        taken = _factories.get(key, _BUILT_IN.get(key, factory))
        if taken is not factory and not clobber:
            raise ValueError(f"{scheme}:// already has a backend; pass clobber=True to replace it")
        _factories[key] = factory


def backend_factory(scheme: str) -> BackendFactory | None:
    """The factory for ``scheme``: registered, built in, from an entry point, else ``None``.

    ``None`` leaves the scheme to fsspec.

    Reads installed packages' metadata the first time a scheme is neither registered nor
    fsspec's: a one-off blocking read of a few milliseconds.

    Raises:
        UnsupportedSourceError: The scheme's entry point failed to load.
    """
    key = scheme.lower()
    with _lock:
        factory = _factories.get(key)
    if factory is not None:
        return factory
    if key in _BUILT_IN:
        module, _, name = _BUILT_IN[key].partition(":")
        built_in: BackendFactory = getattr(importlib.import_module(module), name)
        return built_in
    if _is_filesystem(key):
        return None
    entry = _declared().get(key)
    if entry is None:
        return None
    try:
        loaded: BackendFactory = entry.load()
    except Exception as exc:  # an import error or anything the module raises
        raise UnsupportedSourceError(
            f"the {key}:// backend {entry.value!r} (entry point in {ENTRY_POINT_GROUP!r}) "
            f"failed to load: {exc}"
        ) from exc
    register_backend(key, loaded, clobber=True)
    return loaded


def _is_filesystem(scheme: str) -> bool:
    from fsspec.registry import known_implementations, registry

    return scheme in registry or scheme in known_implementations


def _declared() -> dict[str, EntryPoint]:
    """The group's entry points by scheme, read from the installed distributions once."""
    global _entry_points  # noqa: PLW0603 -- read once per process, as fsspec does
    with _lock:
        if _entry_points is None:
            found = entry_points(group=ENTRY_POINT_GROUP)
            _entry_points = {entry.name.lower(): entry for entry in found}
        return _entry_points
