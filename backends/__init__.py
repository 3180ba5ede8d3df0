"""Storage backends: where skills live, as names, fingerprints and bytes.

>>> from backends import open_backend, register_backend
>>> backend = open_backend("./skills")  # or "s3://bucket/skills", "./bundle.zip", "memory:"
>>> register_backend("sqlite", SqliteBackend)  # then open_backend("sqlite:///skills.db")

Every public name is imported on first use (:mod:`backends._lazy`), so a program reading
local folders never loads the remote layer or the MCP client, and ``skills_core`` can share
the lazy-export helper without loading any backend. The storage branch of the exception tree
(:mod:`backends._errors`) is importable from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends import _errors as errors
from backends._lazy import lazy_exports

if TYPE_CHECKING:
    from backends._base import AsyncResource, Backend, FileEntry, SkillDocument, SkillRef
    from backends._composite import CompositeBackend
    from backends._digests import skill_digest
    from backends._errors import *  # noqa: F403 - the storage branch of the exception tree
    from backends._fsspec_backend import BundleBackend, FsspecBackend
    from backends._index.http import HttpIndexBackend
    from backends._limits import DEFAULT_LIMITS, Limits, check_size
    from backends._local import LocalBackend
    from backends._mcp.backend import McpSkillsBackend
    from backends._memory import MemoryBackend
    from backends._opener import open_backend, register_backend
    from backends._paths import SKILL_MD_NAMES, check_resource_path, check_skill_name, is_hidden
    from backends._remote.failures import RetryPolicy
    from backends._scopes import project_backend

_LAZY = {
    "SKILL_MD_NAMES": "backends._paths",
    "check_resource_path": "backends._paths",
    "check_size": "backends._limits",
    "check_skill_name": "backends._paths",
    "is_hidden": "backends._paths",
    "skill_digest": "backends._digests",
    "AsyncResource": "backends._base",
    "Backend": "backends._base",
    "BundleBackend": "backends._fsspec_backend",
    "CompositeBackend": "backends._composite",
    "DEFAULT_LIMITS": "backends._limits",
    "FileEntry": "backends._base",
    "FsspecBackend": "backends._fsspec_backend",
    "HttpIndexBackend": "backends._index.http",
    "Limits": "backends._limits",
    "LocalBackend": "backends._local",
    "McpSkillsBackend": "backends._mcp.backend",
    "MemoryBackend": "backends._memory",
    "RetryPolicy": "backends._remote.failures",
    "SkillDocument": "backends._base",
    "SkillRef": "backends._base",
    "open_backend": "backends._opener",
    "project_backend": "backends._scopes",
    "register_backend": "backends._opener",
    **dict.fromkeys(errors.__all__, "backends._errors"),
}

__all__ = [
    "DEFAULT_LIMITS",
    "SKILL_MD_NAMES",
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
    "check_resource_path",
    "check_size",
    "check_skill_name",
    "is_hidden",
    "open_backend",
    "project_backend",
    "register_backend",
    "skill_digest",
]
__all__ += errors.__all__


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
