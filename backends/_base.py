"""The Backend protocol and the plain records every backend returns.

A backend deals in names, fingerprints and bytes only: it never parses YAML or knows about
agents. All parsing happens once, in :mod:`skills_core`. The records are named tuples,
immutable and cheap to build by the ten thousand.
"""

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
        fingerprint: Opaque token that changes whenever SKILL.md may have changed
            (mtime/size/inode, ETag, generation, blob sha, CRC, version counter).
        location: Where its SKILL.md lives, for messages and prompts.
        size: Size of SKILL.md in bytes when the listing knows it.
        error: Why the skill cannot be loaded, when the listing already knows (its type
            says how: UnsafePathError, LimitExceededError, or StorageError).
        shadows: Locations of same-named skills this one hides (composite backends).
        frontmatter: The skill's whole frontmatter, when the listing carries it (an MCP
            server's ``skills/list`` entry): the catalog builds the skill's entry from it and
            reads SKILL.md only when the skill is used, checked against it then
            (:mod:`skills_core._catalog.entries`).
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
    """One file inside a skill folder.

    Attributes:
        path: Relative POSIX path inside the skill folder.
        size: Size in bytes.
        fingerprint: Token that changes when the file may have changed (the same sources as
            SkillRef fingerprints), so copies of a skill can tell a same-size edit.
        mode: Its permission bits (``0o755``) where the storage records them (a local
            folder, a zip member made on Unix); ``None`` elsewhere.
    """

    path: str
    size: int
    fingerprint: str = ""
    mode: int | None = None

    @property
    def executable(self) -> bool:
        """True for files under ``scripts/`` and files whose recorded mode is executable.

        Copies and bundles mark these executable, so a script that runs a sibling by path
        works wherever the skill came from, even from storage that records no modes.
        """
        return self.path.startswith("scripts/") or bool(self.mode and self.mode & 0o111)


class Backend(Protocol):
    """Storage that holds skill folders, each with a SKILL.md at its top.

    Five methods and a ``location``: all a catalog needs, plus ``async with``, which closes
    the backend on the way out (inherit :class:`AsyncResource` for it).
    Faster paths a backend may offer (batch fetches, one-pass listings, local folders, change
    events) are optional and listed in :mod:`backends.capabilities`; callers reach them
    through that module's helpers, which fall back to these methods.
    """

    @property
    def location(self) -> str:
        """Where the skills live (path or URL), for messages."""

    async def list(self) -> Sequence[SkillRef]:
        """List every skill with its fingerprint in one cheap pass, reading no content.

        Raises:
            StorageError: The listing itself failed (the caller keeps what it had).
        """

    async def get(self, name: str) -> SkillDocument:
        """Fetch one skill's SKILL.md.

        Raises:
            SkillNotFoundError: No such skill.
            UnsafePathError: The name is not a plain folder name.
        """

    async def files(self, name: str) -> Sequence[FileEntry]:
        """List every file of a skill (SKILL.md included, hidden files excluded), sorted.

        Raises:
            SkillNotFoundError: No such skill.
        """

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read one file of a skill, confined to the skill's folder.

        Raises:
            SkillNotFoundError: No such skill.
            ResourceNotFoundError: No such file in the skill.
            UnsafePathError: The path would leave the skill folder.
            LimitExceededError: The file is larger than ``max_bytes``.
        """

    async def aclose(self) -> None:
        """Release connections and other resources; the backend is not used afterwards."""

    async def __aenter__(self) -> Self:
        """Return the backend itself (:class:`AsyncResource` gives both)."""

    async def __aexit__(self, *exc_info: object) -> None:
        """Close the backend (:meth:`aclose`)."""


class AsyncResource(ABC):
    """Base of every backend, in anyio's ``AsyncResource`` shape: ``async with`` closes it.

    ``__aenter__`` returns the object itself; ``__aexit__`` calls :meth:`aclose` and lets any
    exception through. Subclasses implement :meth:`aclose` only.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    @abstractmethod
    async def aclose(self) -> None:
        """Release connections and other resources; the object is not used afterwards."""
