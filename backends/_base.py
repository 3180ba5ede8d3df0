"""The Backend protocol and its records: names, fingerprints and bytes, never parsed YAML."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol, Self

from backends._errors import StorageError
from backends._limits import DEFAULT_LIMITS


class SkillRef(NamedTuple):
    """One skill as seen by a cheap listing, before any content is read.

    Attributes:
        name: The skill's folder name.
        fingerprint: Opaque token that changes whenever SKILL.md may have changed.
        location: Where its SKILL.md lives, for messages and prompts.
        size: Size of SKILL.md in bytes when the listing knows it.
        error: Why the skill cannot be loaded, when the listing already knows.
        shadows: Locations of same-named skills this one hides (composite backends).
        frontmatter: The whole frontmatter, when the listing carries it (an MCP entry).
        digest: The ``sha256:`` digest of SKILL.md, when the listing gives it.
    """

    name: str
    fingerprint: str
    location: str
    size: int | None = None
    error: StorageError | None = None
    shadows: tuple[str, ...] = ()
    frontmatter: Mapping[str, Any] | None = None
    digest: str | None = None


class SkillDocument(NamedTuple):
    """The bytes of one SKILL.md with the fingerprint they were read under."""

    name: str
    data: bytes
    fingerprint: str
    location: str


class FileEntry(NamedTuple):
    """One file of a skill: its POSIX ``path``, ``size``, ``fingerprint``, ``mode`` if known."""

    path: str
    size: int
    fingerprint: str = ""
    mode: int | None = None

    @property
    def executable(self) -> bool:
        """True for files under ``scripts/`` and files whose recorded mode is executable."""
        return self.path.startswith("scripts/") or bool(self.mode and self.mode & 0o111)


class Backend(Protocol):
    """Storage that holds skill folders (optional faster paths: :mod:`backends.capabilities`)."""

    @property
    def location(self) -> str:
        """Where the skills live (path or URL), for messages."""

    async def list(self) -> Sequence[SkillRef]:
        """List every skill with its fingerprint in one cheap pass (StorageError if it fails)."""

    async def get(self, name: str) -> SkillDocument:
        """Fetch one skill's SKILL.md (SkillNotFoundError, UnsafePathError)."""

    async def files(self, name: str) -> Sequence[FileEntry]:
        """List a skill's visible files, SKILL.md included, sorted (SkillNotFoundError)."""

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read one file of a skill, confined to its folder.

        Raises:
            SkillNotFoundError, ResourceNotFoundError: No such skill, or file in it.
            UnsafePathError: The path would leave the skill folder.
            LimitExceededError: The file is larger than ``max_bytes``.
        """

    async def aclose(self) -> None:
        """Release connections and other resources; the backend is not used afterwards."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


class AsyncResource(ABC):
    """Base of every backend: ``async with`` returns it and closes it (:meth:`aclose`)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    @abstractmethod
    async def aclose(self) -> None:
        """Release connections and other resources; the object is not used afterwards."""
