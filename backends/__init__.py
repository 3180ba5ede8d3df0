"""Storage backends: where skills live, as names, fingerprints and bytes.

>>> from backends import open_backend, register_backend
>>> backend = open_backend("./skills")  # or "s3://bucket/skills", "./bundle.zip", "memory:"
>>> register_backend("sqlite", SqliteBackend)  # then open_backend("sqlite:///skills.db")

Every public name is imported on first use (:mod:`backends.lazy`), so a program reading
local folders never loads the remote layer or the MCP client, and ``skills_core`` can share
the lazy-export helper without loading any backend. The storage branch of the exception tree
(:mod:`backends.errors`) is importable from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends import errors
from backends.lazy import lazy_exports

if TYPE_CHECKING:
    from backends.base import AsyncResource, Backend, FileEntry, SkillDocument, SkillRef
    from backends.composite import CompositeBackend
    from backends.errors import *  # noqa: F403 - the storage branch of the exception tree
    from backends.fsspec_backend import BundleBackend, FsspecBackend
    from backends.index.http import HttpIndexBackend
    from backends.limits import DEFAULT_LIMITS, Limits
    from backends.local import LocalBackend
    from backends.mcp.backend import McpSkillsBackend
    from backends.memory import MemoryBackend
    from backends.opener import open_backend, register_backend
    from backends.remote.failures import RetryPolicy
    from backends.scopes import project_backend

_LAZY = {
    "AsyncResource": "backends.base",
    "Backend": "backends.base",
    "BundleBackend": "backends.fsspec_backend",
    "CompositeBackend": "backends.composite",
    "DEFAULT_LIMITS": "backends.limits",
    "FileEntry": "backends.base",
    "FsspecBackend": "backends.fsspec_backend",
    "HttpIndexBackend": "backends.index.http",
    "Limits": "backends.limits",
    "LocalBackend": "backends.local",
    "McpSkillsBackend": "backends.mcp.backend",
    "MemoryBackend": "backends.memory",
    "RetryPolicy": "backends.remote.failures",
    "SkillDocument": "backends.base",
    "SkillRef": "backends.base",
    "open_backend": "backends.opener",
    "project_backend": "backends.scopes",
    "register_backend": "backends.opener",
    **dict.fromkeys(errors.__all__, "backends.errors"),
}

__all__ = [
    "DEFAULT_LIMITS",
    "AsyncResource",
    "Backend",
    "BundleBackend",
    "CompositeBackend",
    "FileEntry",
    "FsspecBackend",
    "HttpIndexBackend",
    "Limits",
    "LocalBackend",
    "McpSkillsBackend",
    "MemoryBackend",
    "RetryPolicy",
    "SkillDocument",
    "SkillRef",
    "open_backend",
    "project_backend",
    "register_backend",
]
__all__ += errors.__all__


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
