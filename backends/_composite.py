"""Several backends seen as one, in precedence order (project > user > org bucket)."""

from __future__ import annotations

import asyncio
import base64
import json
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from typing import TypeVar

from backends._base import AsyncResource, Backend, FileEntry, SkillDocument, SkillRef
from backends._errors import SkillNotFoundError, StorageError, UnsafePathError
from backends._limits import DEFAULT_LIMITS
from backends._paths import check_skill_name
from backends.capabilities import (
    FetchResult,
    IndexVerifier,
    Provenance,
    change_events,
    export_state,
    fetch_many,
    import_state,
    local_folder,
    provenance_of,
    require_signatures,
)

_STATE_TAG = b"skillfs-composite-state-1\n"
Record = TypeVar("Record", SkillRef, SkillDocument)


class CompositeBackend(AsyncResource):
    """Merge ``backends`` (highest precedence first); on a name clash the earlier one wins.

    The winner's ``shadows`` names every location it hides. A member whose listing fails is
    served as last listed and named by :meth:`listing_failures`; the listing fails only when
    every member does. Members' restart states travel together.
    """

    def __init__(self, backends: Sequence[Backend]) -> None:
        if not backends:
            raise ValueError("CompositeBackend needs at least one backend")
        self._backends = tuple(backends)
        self._owners: dict[str, int] = {}
        self._listed: list[Sequence[SkillRef]] = [() for _ in self._backends]
        self._failures: tuple[tuple[str, Exception], ...] = ()
        self._provenance_of = tuple(provenance_of(backend) for backend in self._backends)
        if any(ask is not None for ask in self._provenance_of):
            self.provenance = self._provenance

    def __repr__(self) -> str:
        return f"CompositeBackend({list(self._backends)!r})"

    @property
    def location(self) -> str:
        """The members' locations joined by `` + ``."""
        return " + ".join(backend.location for backend in self._backends)

    @property
    def backends(self) -> tuple[Backend, ...]:
        """The members, highest precedence first."""
        return self._backends

    async def list(self) -> Sequence[SkillRef]:
        """List all members concurrently and merge by precedence; see the class docstring."""
        results = await asyncio.gather(
            *(backend.list() for backend in self._backends), return_exceptions=True
        )
        failures: list[tuple[str, Exception]] = []
        for index, result in enumerate(results):
            if isinstance(result, Exception):
                failures.append((self._backends[index].location, result))
            elif isinstance(result, BaseException):  # a cancellation, never swallowed
                raise result
            else:
                self._listed[index] = result
        if len(failures) == len(self._backends):
            if len(failures) == 1:
                raise failures[0][1]
            reasons = "; ".join(str(error) for _, error in failures)
            error = StorageError(f"every source failed: {reasons}", location=self.location)
            raise error from failures[0][1]
        self._failures = tuple(failures)
        winners: dict[str, tuple[int, SkillRef]] = {}
        shadowed: defaultdict[str, list[str]] = defaultdict(list)
        for index, refs in enumerate(self._listed):
            for ref in refs:
                if ref.name in winners:
                    shadowed[ref.name].append(ref.location)
                else:
                    winners[ref.name] = index, ref
        self._owners = {name: index for name, (index, _) in winners.items()}
        return [
            _tagged(ref, index)._replace(shadows=tuple(shadowed[name]))
            for name, (index, ref) in sorted(winners.items())
        ]

    def listing_failures(self) -> Sequence[tuple[str, Exception]]:
        """Each member the last listing went without: its location, and why."""
        return self._failures

    def export_state(self) -> bytes | None:
        """Every member's exported state, by position and location; ``None`` if none has one."""
        states = [export_state(backend) for backend in self._backends]
        if not any(states):
            return None
        members = [
            [backend.location, base64.b64encode(state).decode() if state else None]
            for backend, state in zip(self._backends, states, strict=True)
        ]
        return _STATE_TAG + json.dumps(members).encode()

    def import_state(self, state: bytes) -> None:
        """Give each member the state exported for it (same position, same location)."""
        if not state.startswith(_STATE_TAG):
            return
        try:
            members = [
                (location, base64.b64decode(member) if member else b"")
                for location, member in json.loads(state[len(_STATE_TAG) :])
            ]
        except (ValueError, TypeError):  # not one a composite exported: ignored
            return
        if len(members) == len(self._backends):
            for backend, (location, member) in zip(self._backends, members, strict=True):
                if location == backend.location:
                    import_state(backend, member)

    async def get(self, name: str) -> SkillDocument:
        """Fetch from the member that owns the name."""
        index = await self._owner(name)
        document = await self._backends[index].get(name)
        return _tagged(document, index)

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Fetch from each owning member in one batch per member."""
        await self._learn_owners(names)
        results: dict[str, FetchResult] = {}
        by_owner: dict[int, list[str]] = {}
        for name in names:
            try:
                by_owner.setdefault(self._known_owner(name), []).append(name)
            except (SkillNotFoundError, UnsafePathError) as exc:
                results[name] = exc
        batches = await asyncio.gather(
            *(fetch_many(self._backends[index], group) for index, group in by_owner.items())
        )
        for (index, group), batch in zip(by_owner.items(), batches, strict=True):
            for name, result in zip(group, batch, strict=True):
                results[name] = (
                    _tagged(result, index) if isinstance(result, SkillDocument) else result
                )
        return [results[name] for name in names]

    async def files(self, name: str) -> Sequence[FileEntry]:
        """List files from the owning member."""
        return await self._backends[await self._owner(name)].files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read from the owning member."""
        return await self._backends[await self._owner(name)].read(name, path, max_bytes=max_bytes)

    async def aclose(self) -> None:
        """Close every member."""
        await asyncio.gather(*(backend.aclose() for backend in self._backends))

    async def local_folder(self, name: str) -> str | None:
        """The folder of the owning member's skill, when that member has one here."""
        return await local_folder(self._backends[await self._owner(name)], name)

    async def change_events(self) -> AsyncIterator[None] | None:
        """Every member's change signals merged; ``None`` unless every member has them."""
        streams = [await change_events(backend) for backend in self._backends]
        ready = [stream for stream in streams if stream is not None]
        return merged(ready) if len(ready) == len(streams) else None

    def require_signatures(self, verifier: IndexVerifier) -> None:
        """Make every member serve only published indexes ``verifier`` accepts."""
        for backend in self._backends:
            require_signatures(backend, verifier)

    def _provenance(self, name: str) -> Provenance | None:
        index = self._owners.get(name)
        ask = None if index is None else self._provenance_of[index]
        return ask(name) if ask is not None else None

    async def _owner(self, name: str) -> int:
        await self._learn_owners([name])
        return self._known_owner(name)

    async def _learn_owners(self, names: Sequence[str]) -> None:
        if any(name not in self._owners for name in names):
            await self.list()

    def _known_owner(self, name: str) -> int:
        check_skill_name(name)
        try:
            return self._owners[name]
        except KeyError:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self.location) from None


def _tagged(record: Record, index: int) -> Record:
    return record._replace(fingerprint=f"{index}:{record.fingerprint}")


async def merged(streams: Sequence[AsyncIterator[None]]) -> AsyncIterator[None]:
    """One signal stream from several, starting once every stream has signalled once."""
    queue: asyncio.Queue[int | Exception] = asyncio.Queue()

    async def pump(index: int, stream: AsyncIterator[None]) -> None:
        try:
            async for _ in stream:
                queue.put_nowait(index)
        except Exception as exc:  # handed to the reader, who raises it
            queue.put_nowait(exc)

    tasks = [asyncio.create_task(pump(index, stream)) for index, stream in enumerate(streams)]
    try:
        started: set[int] = set()
        while True:
            signal = await queue.get()
            if isinstance(signal, Exception):
                raise signal
            if len(started) == len(streams):
                yield None
                continue
            started.add(signal)
            if len(started) == len(streams):
                yield None
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
