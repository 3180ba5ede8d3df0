"""IndexBackend: the skills a well-known index lists, as a backend, over any transport.

- **Listing** is the index alone: one conditional request when nothing changed (an HTTP GET
  answered 304, or a HEAD on a bucket), one GET when it did. Each skill's fingerprint is its
  artifact's digest, so a catalog re-reads exactly the skills whose artifact changed.
- **SKILL.md** comes from the index when it carries it (skillfs publications), else from the
  artifact, fetched on first use.
- **Files** come from the artifact, fetched on first use, verified against its digest before
  anything is read, screened (archives), and kept while the index lists that digest.
- A digest mismatch reads the index again once: an artifact replaced before its index (a
  publication in progress) is served under the new index's entry; anything else is refused
  with a :class:`~backends.errors.VerificationError`.
- An artifact that cannot be fetched reads the index again once: when it now names another
  artifact (a newer publication removed the old one), that one is served.
- With a ``verifier`` (a catalog trusting ``keys``), each new index is verified before
  anything of it is used: its signature file (the index's name plus ``.sig``, read no further than
  ``MAX_SIGNATURE_BYTES``) must be a trusted key's over exactly the bytes served, and its
  ``skillfs-sequence`` no lower than the highest already accepted
  (:mod:`skills_core.trust.signing`, checked in :mod:`backends.index.verification`); else the
  refresh fails with a :class:`~backends.errors.SignatureError` and the backend keeps serving
  what it had verified. Artifacts are then checked against the signed digests, as always.
- **Across processes** the index's bytes and validator are exported
  (:class:`~backends.capabilities.SourceState`): a new backend given them sends its first
  request conditional on that validator and, told "not modified", lists those bytes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol

from backends.base import FileEntry, SkillDocument, SkillRef
from backends.capabilities import IndexVerifier
from backends.digests import digest_of, digest_off_loop
from backends.errors import (
    ResourceNotFoundError,
    SkillNotFoundError,
    StorageError,
    VerificationError,
)
from backends.index.artifact import Artifact, open_archive, skill_md_artifact
from backends.index.document import SKILL_MD, Index, IndexEntry
from backends.index.verification import verified_index
from backends.limits import DEFAULT_LIMITS, Limits, check_size
from backends.paths import check_resource_path, check_skill_name
from backends.resource import AsyncResource


class Fetched(NamedTuple):
    """A response with a body.

    Attributes:
        data: The body.
        validator: What to send next time to be told "not modified", if anything.
        content_type: The ``Content-Type``, when the storage gives one.
    """

    data: bytes
    validator: str | None = None
    content_type: str | None = None


class IndexTransport(Protocol):
    """How an index and its artifacts are fetched from one kind of storage."""

    @property
    def location(self) -> str:
        """The index's URL, for messages."""

    def resolve(self, url: str) -> tuple[str, str]:
        """An entry's ``url`` as ``(key, location)``: how to fetch it, and where it is.

        Raises:
            StorageError: The URL cannot be fetched through this transport.
        """

    async def fetch_index(self, validator: str | None, *, max_bytes: int) -> Fetched | None:
        """The index, or ``None`` when it is unchanged since ``validator``.

        Raises:
            ResourceNotFoundError: There is no index.
            LimitExceededError: It is larger than ``max_bytes``.
        """

    async def fetch_artifact(self, key: str, *, location: str, max_bytes: int) -> Fetched:
        """One artifact.

        Raises:
            LimitExceededError: It is larger than ``max_bytes``.
        """

    async def fetch_signature(self, *, max_bytes: int) -> bytes | None:
        """The index's signature file (its name plus ``.sig``), or ``None`` when there is none.

        Raises:
            LimitExceededError: It is larger than ``max_bytes``.
        """

    async def aclose(self) -> None:
        """Release connections."""


class _Listed(NamedTuple):
    entry: IndexEntry
    key: str
    location: str

    @property
    def skill_md_location(self) -> str:
        archive = self.entry.type != SKILL_MD
        return f"{self.location}!/SKILL.md" if archive else self.location


class _State(NamedTuple):
    raw: bytes
    validator: str | None
    skills: Mapping[str, _Listed]
    problems: Mapping[str, StorageError]
    refs: tuple[SkillRef, ...]


_EMPTY = _State(b"", None, {}, {}, ())
_STATE_TAG = b"skillfs-index/1\n"
"""How an exported index state starts: the validator's line, then the index's bytes follow."""


class IndexBackend(AsyncResource):
    """The skills of a well-known index, read through ``transport``; see the module docstring.

    Args:
        transport: How the index and its artifacts are fetched.
        limits: ``max_index_bytes`` for the index, ``max_skill_md_bytes`` for SKILL.md
            artifacts, and the bundle limits for archives.
        verifier: Checks each new index's signature and sequence before it is used;
            ``None``: no check (see :meth:`require_signatures`).
    """

    def __init__(
        self,
        transport: IndexTransport,
        *,
        limits: Limits = DEFAULT_LIMITS,
        verifier: IndexVerifier | None = None,
    ) -> None:
        self._transport = transport
        self._limits = limits
        self._verifier = verifier
        self._state = _EMPTY
        self._imported: Fetched | None = None  # what another process read, not yet confirmed
        self._listed_once = False
        self._artifacts: dict[str, Artifact | StorageError] = {}
        self._downloads: dict[str, asyncio.Future[tuple[Artifact | StorageError, _Listed]]] = {}
        self._refreshing = asyncio.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"

    def require_signatures(self, verifier: IndexVerifier) -> None:
        """Serve only indexes ``verifier`` accepts, from the next index read on."""
        self._verifier = verifier

    @property
    def location(self) -> str:
        """The index's URL (any password hidden)."""
        return self._transport.location

    async def list(self) -> Sequence[SkillRef]:
        """Every skill the index lists, and every entry it cannot use, with the reason."""
        return (await self._refresh()).refs

    async def get(self, name: str) -> SkillDocument:
        """A skill's SKILL.md: from the index when it carries it, else from the artifact."""
        listed = await self._listed(name)
        inline = listed.entry.skill_md
        if inline is not None:
            return SkillDocument(name, inline, listed.entry.digest, listed.skill_md_location)
        artifact, listed = await self._artifact(listed)
        stored = artifact.skill_md
        data = await asyncio.to_thread(artifact.read, stored)
        return SkillDocument(name, data, listed.entry.digest, stored.location)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """A skill's visible files, from its artifact."""
        artifact, _ = await self._artifact(await self._listed(name))
        return artifact.entries()

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """One file of a skill, from its verified artifact."""
        listed = await self._listed(name)
        relative = check_resource_path(path, location=f"{listed.location}!/{path}")
        artifact, _ = await self._artifact(listed)
        stored = artifact.file(relative)
        if stored is None:
            raise ResourceNotFoundError("no such file", location=f"{listed.location}!/{relative}")
        check_size(stored.size, max_bytes, location=stored.location)
        return await asyncio.to_thread(artifact.read, stored)

    def export_state(self) -> bytes | None:
        """The index's validator and bytes as last read; ``None`` before the first read."""
        state = self._state
        if not state.raw:
            return None
        return b"%s%s\n%s" % (_STATE_TAG, (state.validator or "").encode(), state.raw)

    def import_state(self, state: bytes) -> None:
        """Send the first request conditional on an exported state's validator."""
        if self._state is _EMPTY and self.recognises(state):
            line, _, raw = state[len(_STATE_TAG) :].partition(b"\n")
            self._imported = Fetched(raw, line.decode(errors="replace") or None)

    @staticmethod
    def recognises(state: bytes) -> bool:
        """True when ``state`` is an index's exported state."""
        return state.startswith(_STATE_TAG)

    async def aclose(self) -> None:
        """Close the transport's connections and drop every artifact held."""
        self._artifacts.clear()
        self._state, self._listed_once = _EMPTY, False
        await self._transport.aclose()

    async def _refresh(self) -> _State:
        async with self._refreshing:
            state = self._state
            imported, self._imported = self._imported, None
            if state is not _EMPTY:
                imported = None
            validator = imported.validator if imported is not None else state.validator
            limit = self._limits.max_index_bytes
            fetched = await self._transport.fetch_index(validator, max_bytes=limit)
            self._listed_once = True
            if fetched is None and imported is not None:  # unchanged since another process
                try:
                    return self._adopt(imported, await self._verified(imported.data))
                except StorageError:  # a damaged state is never fatal: read the index
                    fetched = await self._transport.fetch_index(None, max_bytes=limit)
            if fetched is None or fetched.data == state.raw:
                if fetched is not None:
                    self._state = state._replace(validator=fetched.validator)
                return self._state
            return self._adopt(fetched, await self._verified(fetched.data))

    async def _verified(self, data: bytes) -> Index:
        """``data`` parsed, once verified with the verifier, if any (see the module docstring)."""
        return await verified_index(data, self._transport, self._verifier)

    def _adopt(self, fetched: Fetched, index: Index) -> _State:
        """Serve ``index``, as ``fetched`` brought it, and drop artifacts it no longer lists."""
        self._state = self._build(fetched, index)
        listed = {entry.entry.digest for entry in self._state.skills.values()}
        for digest in set(self._artifacts) - listed:
            del self._artifacts[digest]
        return self._state

    def _build(self, fetched: Fetched, index: Index) -> _State:
        skills: dict[str, _Listed] = {}
        problems = dict(index.problems)
        for name, entry in index.entries.items():
            try:
                key, location = self._transport.resolve(entry.url)
            except StorageError as exc:
                problems[name] = exc
                continue
            skills[name] = _Listed(entry, key, location)
        refs = [
            SkillRef(
                name,
                listed.entry.digest,
                listed.skill_md_location,
                len(listed.entry.skill_md) if listed.entry.skill_md is not None else None,
            )
            for name, listed in skills.items()
        ]
        refs += [
            SkillRef(
                label, f"refused:{error.message}", error.location or self.location, error=error
            )
            for label, error in problems.items()
        ]
        refs.sort(key=lambda ref: ref.name)
        return _State(fetched.data, fetched.validator, skills, problems, tuple(refs))

    async def _listed(self, name: str) -> _Listed:
        """The entry of ``name``, reading the index again when the name is new to it."""
        check_skill_name(name)
        state = self._state
        if not self._listed_once or (name not in state.skills and name not in state.problems):
            state = await self._refresh()
        listed = state.skills.get(name)
        if listed is not None:
            return listed
        problem = state.problems.get(name)
        if problem is not None:
            raise type(problem)(problem.message, location=problem.location)
        raise SkillNotFoundError(f"no skill named {name!r}", location=self.location)

    async def _artifact(self, listed: _Listed) -> tuple[Artifact, _Listed]:
        """The skill's verified artifact and the entry it matches; see the module docstring."""
        entry = listed.entry
        inline = entry.skill_md if entry.type == SKILL_MD else None
        if inline is not None and digest_of(inline) == entry.digest:  # in the index: verified
            return self._skill_md(listed, inline), listed
        found = self._artifacts.get(entry.digest)
        held, listed = (found, listed) if found is not None else await self._downloaded(listed)
        if isinstance(held, StorageError):
            raise type(held)(held.message, location=held.location)
        return held, listed

    async def _downloaded(self, listed: _Listed) -> tuple[Artifact | StorageError, _Listed]:
        """One download per digest, however many readers wait for it (and if they give up)."""
        digest = listed.entry.digest
        download = self._downloads.get(digest)
        if download is None:
            download = asyncio.ensure_future(self._download(listed))
            self._downloads[digest] = download
            download.add_done_callback(lambda _: self._downloads.pop(digest, None))
        return await asyncio.shield(download)

    async def _download(
        self, listed: _Listed, *, again: bool = True
    ) -> tuple[Artifact | StorageError, _Listed]:
        """Fetch, verify and screen one artifact; a refusal is kept like an artifact."""
        entry = listed.entry
        archive = entry.type != SKILL_MD
        # An archive is read whole into memory: no larger than a bundle downloaded whole.
        limit = self._limits.bundle_download_bytes if archive else self._limits.max_skill_md_bytes
        try:
            fetched = await self._transport.fetch_artifact(
                listed.key, location=listed.location, max_bytes=limit
            )
        except StorageError:
            moved = await self._moved(listed) if again else None
            if moved is None:
                raise
            return await self._download(moved, again=False)
        digest = await digest_off_loop(fetched.data)
        if digest != entry.digest:
            listed = await self._newer(listed, digest)
        artifact: Artifact | StorageError
        if archive:
            try:
                artifact = await asyncio.to_thread(
                    open_archive,
                    entry.name,
                    fetched.data,
                    content_type=fetched.content_type,
                    limits=self._limits,
                    location=listed.location,
                )
            except StorageError as exc:
                artifact = exc
        else:
            artifact = self._skill_md(listed, fetched.data)
        self._artifacts[digest] = artifact
        return artifact, listed

    async def _moved(self, listed: _Listed) -> _Listed | None:
        """The entry a fresh index gives the skill when it names another artifact, if it does."""
        try:
            fresh = (await self._refresh()).skills.get(listed.entry.name)
        except StorageError:
            return None  # the artifact's own failure is the one to report
        return fresh if fresh is not None and fresh.key != listed.key else None

    async def _newer(self, listed: _Listed, digest: str) -> _Listed:
        """The entry a fresh index gives for an artifact that no longer matches ``listed``.

        Raises:
            VerificationError: The fresh index does not list these bytes either.
        """
        fresh = (await self._refresh()).skills.get(listed.entry.name)
        if fresh is not None and fresh.entry.digest == digest and fresh.key == listed.key:
            return fresh
        raise VerificationError(
            f"refused: the artifact's digest is {digest}, the index lists {listed.entry.digest} "
            "(changed since the index was read, or tampered with)",
            location=listed.location,
        )

    @staticmethod
    def _skill_md(listed: _Listed, data: bytes) -> Artifact:
        entry = listed.entry
        return skill_md_artifact(
            entry.name, data, fingerprint=entry.digest, location=listed.location
        )
