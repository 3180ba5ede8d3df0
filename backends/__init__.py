"""Storage backends: where skills live, as names, fingerprints and bytes.

>>> from backends import open_backend
>>> backend = open_backend("./skills")  # or "s3://bucket/skills", "./bundle.zip", "memory:"
"""

from backends.base import (
    Backend,
    DocumentLister,
    FetchResult,
    FileEntry,
    ListedDocument,
    SkillDocument,
    SkillRef,
)
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
from backends.remote import FsspecBackend, RetryPolicy, write_bytes

__all__ = [
    "DEFAULT_LIMITS",
    "Backend",
    "CompositeBackend",
    "DocumentLister",
    "FetchResult",
    "FileEntry",
    "FsspecBackend",
    "LimitExceededError",
    "Limits",
    "ListedDocument",
    "LocalBackend",
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
    "open_backend",
    "write_bytes",
]
