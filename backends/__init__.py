"""Storage backends: where skills live, as names, fingerprints and bytes.

>>> from backends import open_backend, register_backend
>>> backend = open_backend("./skills")  # or "s3://bucket/skills", "./bundle.zip", "memory:"
>>> register_backend("sqlite", SqliteBackend)  # then open_backend("sqlite:///skills.db")

The remote layer (:class:`FsspecBackend`, :class:`HttpIndexBackend` and what goes with them),
the MCP client and the project-scope helper are imported on first use, so a program reading
local folders never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends.base import Backend, FileEntry, SkillDocument, SkillRef
from backends.composite import CompositeBackend
from backends.errors import (
    LimitExceededError,
    MissingDependencyError,
    ResourceNotFoundError,
    SkillfsError,
    SkillNotFoundError,
    StorageError,
    UnsafePathError,
    UnsupportedSourceError,
    VerificationError,
)
from backends.lazy import lazy_exports
from backends.limits import DEFAULT_LIMITS, Limits
from backends.local import LocalBackend
from backends.memory import MemoryBackend
from backends.opener import open_backend
from backends.registry import register_backend
from backends.resource import AsyncResource

if TYPE_CHECKING:
    from backends.fsspec_backend import FsspecBackend
    from backends.index.http import HttpIndexBackend
    from backends.mcp.backend import McpSkillsBackend
    from backends.remote import RetryPolicy, write_bytes
    from backends.scopes import project_backend

_LAZY = {
    "FsspecBackend": "backends.fsspec_backend",
    "HttpIndexBackend": "backends.index.http",
    "McpSkillsBackend": "backends.mcp.backend",
    "RetryPolicy": "backends.remote",
    "project_backend": "backends.scopes",
    "write_bytes": "backends.remote",
}

__all__ = [
    "DEFAULT_LIMITS",
    "AsyncResource",
    "Backend",
    "CompositeBackend",
    "FileEntry",
    "FsspecBackend",
    "HttpIndexBackend",
    "LimitExceededError",
    "Limits",
    "LocalBackend",
    "McpSkillsBackend",
    "MemoryBackend",
    "MissingDependencyError",
    "ResourceNotFoundError",
    "RetryPolicy",
    "SkillDocument",
    "SkillNotFoundError",
    "SkillRef",
    "SkillfsError",
    "StorageError",
    "UnsafePathError",
    "UnsupportedSourceError",
    "VerificationError",
    "open_backend",
    "project_backend",
    "register_backend",
    "write_bytes",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
