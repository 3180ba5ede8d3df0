"""Storage backends: where skills live, as names, fingerprints and bytes.

>>> from backends import open_backend
>>> backend = open_backend("./skills")  # or "memory:", and remote URLs with the fsspec backend
"""

from backends.base import Backend, FetchResult, FileEntry, SkillDocument, SkillRef
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
)
from backends.limits import DEFAULT_LIMITS, Limits
from backends.local import LocalBackend
from backends.memory import MemoryBackend
from backends.opener import open_backend

__all__ = [
    "DEFAULT_LIMITS",
    "Backend",
    "CompositeBackend",
    "FetchResult",
    "FileEntry",
    "LimitExceededError",
    "Limits",
    "LocalBackend",
    "MemoryBackend",
    "MissingDependencyError",
    "ResourceNotFoundError",
    "SkillDocument",
    "SkillNotFoundError",
    "SkillRef",
    "SkillfsError",
    "StorageError",
    "UnsafePathError",
    "UnsupportedSourceError",
    "open_backend",
]
