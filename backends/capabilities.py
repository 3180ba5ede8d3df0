"""What a backend may do beyond the five methods of :class:`~backends._base.Backend`.

Each ability is a protocol a backend implements only when it has something faster or more to
offer; callers call the helper beside it, which falls back to the plain protocol (the table
is in docs/backends.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import NamedTuple, Protocol, TypeVar, runtime_checkable

from backends._base import Backend, SkillDocument, SkillRef
from backends._errors import StorageError, UnsupportedSourceError

__all__ = [
    "BatchFetcher",
    "ChangeEvents",
    "DocumentLister",
    "FetchResult",
    "IndexVerifier",
    "ListedDocument",
    "LocalFolders",
    "PartialListings",
    "Provenance",
    "Provenances",
    "SignedIndexes",
    "SourceState",
    "change_events",
    "export_state",
    "fetch_many",
    "import_state",
    "list_documents",
    "listing_failures",
    "local_folder",
    "provenance_of",
    "require_signatures",
]

T = TypeVar("T")
R = TypeVar("R")

FetchResult = SkillDocument | StorageError  # per name: the document, or why it failed
ListedDocument = SkillDocument | SkillRef  # per skill: its SKILL.md, or a ref saying why not

_FETCH_CONCURRENCY = 16


@runtime_checkable
class BatchFetcher(Protocol):
    """A backend that fetches many SKILL.md files faster together than one by one."""

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Fetch several SKILL.md files, in order; one failure never hides the rest."""


@runtime_checkable
class DocumentLister(Protocol):
    """A backend that can list and read every SKILL.md in one pass (a first load)."""

    async def list_documents(self, *, max_bytes: int) -> Sequence[ListedDocument]:
        """Every skill in listing order, read; a SKILL.md over ``max_bytes`` is refused unread."""


@runtime_checkable
class LocalFolders(Protocol):
    """A backend whose skills may sit in folders on this machine (scripts run in place)."""

    async def local_folder(self, name: str) -> str | None:
        """The skill's folder on this machine, or ``None`` when it has none here."""


@runtime_checkable
class ChangeEvents(Protocol):
    """A backend that can say when its skills may have changed, instead of being polled."""

    async def change_events(self) -> AsyncIterator[None] | None:
        """Signals, one per change (and one once it watches); ``None`` when it cannot watch."""


class Provenance(NamedTuple):
    """Where a skill comes from (:data:`MCP`, :data:`PROJECT`) and its ``content`` digest if known.

    Reported by its backend; a catalog's trust policy judges.
    """

    origin: str
    content: str | None = None


MCP = "mcp"
PROJECT = "project"


@runtime_checkable
class Provenances(Protocol):
    """A backend whose skills come from an origin not trusted to grant permissions."""

    def provenance(self, name: str) -> Provenance | None:
        """Where the skill comes from; ``None``: trusted as any source the user chose."""


@runtime_checkable
class IndexVerifier(Protocol):
    """Checks each new published index before it is used (blocking calls)."""

    def check_signature(self, index: bytes, signature: bytes | None, *, location: str) -> None:
        """Raise :class:`~backends._errors.SignatureError` unless a trusted key signed ``index``."""

    def check_sequence(self, sequence: int | None, *, location: str) -> None:
        """Raise :class:`~backends._errors.SignatureError` for an older publication (rollback)."""


@runtime_checkable
class SignedIndexes(Protocol):
    """A backend that reads published indexes, and can serve only those a verifier accepts."""

    def require_signatures(self, verifier: IndexVerifier) -> None:
        """Serve only indexes ``verifier`` accepts, from the next listing on."""


@runtime_checkable
class SourceState(Protocol):
    """A backend whose state lets a new process ask its source "changed since?".

    The blob is opaque: one not recognised is ignored, one imported used once confirmed.
    """

    def export_state(self) -> bytes | None:
        """The state as of the last listing; ``None`` when there is nothing worth keeping."""

    def import_state(self, state: bytes) -> None:
        """Take a state another instance exported, before the first listing (no I/O)."""


@runtime_checkable
class PartialListings(Protocol):
    """A backend of several sources whose listing goes on without those that fail."""

    def listing_failures(self) -> Sequence[tuple[str, Exception]]:
        """Each source the last listing went without: its location, and why."""


async def settled(
    work: Callable[[T], Awaitable[R]], items: Iterable[T], *, concurrency: int
) -> list[R | StorageError]:
    """``work`` on each item, ``concurrency`` at a time, in order; a StorageError in its place."""
    gate = asyncio.Semaphore(concurrency)

    async def one(item: T) -> R | StorageError:
        async with gate:
            try:
                return await work(item)
            except StorageError as exc:
                return exc

    return list(await asyncio.gather(*(one(item) for item in items)))


async def fetch_many(backend: Backend, names: Sequence[str]) -> Sequence[FetchResult]:
    """Fetch the SKILL.md of every name, in order, with the error in place of each failure."""
    if isinstance(backend, BatchFetcher):
        return await backend.get_many(names)
    return await settled(backend.get, names, concurrency=_FETCH_CONCURRENCY)


async def list_documents(backend: Backend, *, max_bytes: int) -> Sequence[ListedDocument] | None:
    """A one-pass listing when the backend offers one, else ``None``."""
    if isinstance(backend, DocumentLister):
        return await backend.list_documents(max_bytes=max_bytes)
    return None


async def local_folder(backend: Backend, name: str) -> str | None:
    """The skill's folder on this machine, when the backend has one."""
    if isinstance(backend, LocalFolders):
        return await backend.local_folder(name)
    return None


async def change_events(backend: Backend) -> AsyncIterator[None] | None:
    """The backend's change signals, or ``None`` when it must be polled."""
    if isinstance(backend, ChangeEvents):
        return await backend.change_events()
    return None


def provenance_of(backend: Backend) -> Callable[[str], Provenance | None] | None:
    """By skill name, where each skill comes from; ``None``: all trusted alike (ask once)."""
    return backend.provenance if isinstance(backend, Provenances) else None


def require_signatures(backend: Backend, verifier: IndexVerifier) -> None:
    """Make ``backend`` serve only indexes ``verifier`` accepts (UnsupportedSourceError: none)."""
    if not isinstance(backend, SignedIndexes):
        raise UnsupportedSourceError(
            "trusted keys verify published indexes: this source is not one",
            location=backend.location,
        )
    backend.require_signatures(verifier)


def export_state(backend: object) -> bytes | None:
    """The backend's exported state, or ``None`` when it keeps none."""
    return backend.export_state() if isinstance(backend, SourceState) else None


def listing_failures(backend: Backend) -> Sequence[tuple[str, Exception]]:
    """The sources the backend's last listing went without, with why (none for one source)."""
    return backend.listing_failures() if isinstance(backend, PartialListings) else ()


def import_state(backend: object, state: bytes | None) -> None:
    """Give the backend a state it exported in another process (ignored when it keeps none)."""
    if state and isinstance(backend, SourceState):
        backend.import_state(state)
