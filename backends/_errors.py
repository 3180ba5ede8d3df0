"""The storage branch of skillfs's exception tree (drawn whole in :mod:`skills_core._errors`)."""

from __future__ import annotations

__all__ = [
    "LimitExceededError",
    "MissingDependencyError",
    "ResourceNotFoundError",
    "SignatureError",
    "SkillNotFoundError",
    "SkillfsError",
    "StorageError",
    "UnsafePathError",
    "UnsupportedSourceError",
    "VerificationError",
]

DISTRIBUTION = "agent-skillfs"  # ``skillfs`` on the package index is another project


def installed_version() -> str:
    """The version of skillfs installed, or ``"(not installed)"`` (a bare checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "(not installed)"


def install_command(extra: str) -> str:
    """The ``pip install`` line that adds one of skillfs's optional extras."""
    return f'pip install "{DISTRIBUTION}[{extra}]"'


MAX_ECHOED_CHARS = 100  # most characters of a caller's value a message quotes


def echoed(value: str) -> str:
    """``value`` as a message quotes it: cut to its first characters, ``… [N characters]``."""
    if len(value) <= MAX_ECHOED_CHARS:
        return value
    return f"{value[:MAX_ECHOED_CHARS]}… [{len(value):,} characters]"


class SkillfsError(Exception):
    """Root of every error skillfs raises on purpose; ``location``: where, when one place."""

    def __init__(self, message: str, *, location: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


class StorageError(SkillfsError):
    """A backend could not list, fetch or read something."""


class SkillNotFoundError(StorageError, LookupError):
    """No skill of that name exists in the backend."""


class ResourceNotFoundError(StorageError, LookupError):
    """The skill exists but holds no file at that path."""


class UnsafePathError(StorageError, ValueError):
    """A name or path would leave its skill folder (``..``, absolute, drive, symlink escape)."""


class LimitExceededError(StorageError):
    """Something is larger than a configured :class:`backends._limits.Limits` allows."""


class VerificationError(StorageError):
    """Content unlike the digest (or size) it was listed with: changed since, or tampered with."""


class SignatureError(VerificationError):
    """A signed publication refused (unsigned, untrusted, altered, rolled back), or a bad key."""


class UnsupportedSourceError(SkillfsError, ValueError):
    """A URL or path names storage that skillfs cannot open."""


class MissingDependencyError(SkillfsError, ImportError):
    """An optional package is needed; the message names the extra to install."""
