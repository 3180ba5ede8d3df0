"""From one listing to the changes a catalog's snapshot needs, reading only what changed.

Unchanged skills (the same fingerprint as their entry) cost one comparison each and are not
read again; a backend that withholds fields is asked again for each one, and an entry whose
withheld fields changed (an approval given or withdrawn) is judged again from what it holds.
New and changed SKILL.md files are fetched in batches and judged batch by batch in a worker
thread, so a catalog that keeps metadata only never holds more than one batch of SKILL.md
bytes at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TypedDict

from backends.base import Backend, SkillDocument, SkillRef
from backends.capabilities import (
    ListedDocument,
    fetch_many,
    list_documents,
    withheld_fields_of,
)
from backends.digests import digest_of
from backends.errors import SkillNotFoundError, StorageError
from backends.limits import Limits, too_large
from skills_core import codes
from skills_core.catalog.entries import (
    CatalogEntry,
    failed_read_entry,
    judge_document,
    problem_from_error,
    unreadable_entry,
    withhold,
)
from skills_core.catalog.listed import listed_entry, verified
from skills_core.catalog.lock import SkillLock
from skills_core.catalog.report import ReloadReport
from skills_core.catalog.snapshot import CatalogSnapshot, Changes
from skills_core.format.models import FormatLimits, SkillProblem

FETCH_BATCH = 512
"""SKILL.md files fetched and judged together."""
Progress = Callable[[int, int], None]
"""Long work's progress hook, called with (done, in all) as it goes: SKILL.md files read by a
refresh, skills hashed by a lock, skills packed by a bundle."""

LEAN_FETCH_BATCH = 64
"""The same for a catalog keeping metadata only: fewer bytes held at once (its peak memory at
10,000 skills drops by about 5 MiB against batches of 512) for a few more thread hops."""


class Reads(TypedDict):
    """What one refresh read: the report's ``fetched``, ``bytes_read`` and ``reads``."""

    fetched: int
    bytes_read: int
    reads: int


class Loader:
    """Lists a backend and judges what changed, as one catalog does.

    Args:
        backend: Where the skills live.
        limits: Storage limits (``max_skill_md_bytes``).
        format_limits: The frontmatter's limits.
        strict: Judge as ``skillfs validate`` does.
        keep_bodies: Keep each SKILL.md on its entry; otherwise only its hash.

    Attributes:
        lock: The lock each SKILL.md is judged against, when the catalog has one.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        limits: Limits,
        format_limits: FormatLimits,
        strict: bool,
        keep_bodies: bool,
    ) -> None:
        self._backend = backend
        self._limits = limits
        self._format_limits = format_limits
        self._strict = strict
        self._keep_bodies = keep_bodies
        self._batch = FETCH_BATCH if keep_bodies else LEAN_FETCH_BATCH
        self._withheld_of = withheld_fields_of(backend)
        self.lock: SkillLock | None = None

    async def listing(self, *, cold: bool) -> Sequence[ListedDocument]:
        """The backend's listing; a ``cold`` load that keeps bodies reads in the same pass."""
        if cold and self._keep_bodies:
            limit = self._limits.max_skill_md_bytes
            listing = await list_documents(self._backend, max_bytes=limit)
            if listing is not None:
                return listing
        return await self._backend.list()

    async def changes(
        self,
        listing: Sequence[ListedDocument],
        old: CatalogSnapshot,
        progress: Progress | None = None,
    ) -> tuple[dict[str, CatalogEntry | None], list[SkillProblem], Reads]:
        """What changed since ``old``, the problems of this refresh, and what it read.

        Changes are new or changed entries by folder, and ``None`` for folders gone.
        ``progress`` hears how many of the SKILL.md files to fetch were read, batch by batch.
        """
        changes: dict[str, CatalogEntry | None] = {}
        read: list[SkillDocument] = []  # by the listing itself
        from_listing: list[SkillRef] = []  # listed with their frontmatter: judged unread
        pending: list[SkillRef] = []
        max_size = self._limits.max_skill_md_bytes
        old_entries = old.entries
        withheld_of = self._withheld_of
        known = 0
        for item in listing:
            if isinstance(item, SkillDocument):
                read.append(item)
                continue
            previous = old_entries.get(item.name)
            if previous is not None:
                known += 1
                if previous.fingerprint == item.fingerprint and previous.listed == item.frontmatter:
                    if withheld_of is not None:
                        judged = withhold(previous, withheld_of(previous.name))
                        if judged is not previous and judged != previous:  # approval changed
                            changes[item.name] = judged
                    continue
            if item.error is not None:
                changes[item.name] = unreadable_entry(item, item.error)
            elif item.size is not None and item.size > max_size:
                oversize = too_large("SKILL.md", item.size, max_size, location=item.location)
                changes[item.name] = unreadable_entry(item, oversize)
            else:  # a listed frontmatter judged unread, but against a lock only with a digest
                unread = item.frontmatter is not None and (self.lock is None or item.digest)
                (from_listing if unread else pending).append(item)
        if known < len(old_entries):  # some folders are gone
            listed = {item.name for item in listing}
            changes.update((folder, None) for folder in old_entries.keys() - listed)
        problems: list[SkillProblem] = []
        read_bytes = await self._judge_batch(read, read, old, changes, problems)
        await self._judge_batch(from_listing, from_listing, old, changes, problems)
        read_bytes += await self._fetch(pending, old, changes, problems, progress)
        if self.lock is not None:  # by name: a locked skill moved to another folder is not gone
            entries = {**old_entries, **changes}.values()
            problems += self.lock.missing({e.declared_name for e in entries if e is not None})
        reads = Reads(
            fetched=len(read) + len(pending), bytes_read=read_bytes, reads=1 + len(pending)
        )
        return changes, problems, reads

    async def _fetch(
        self,
        pending: Sequence[SkillRef],
        old: CatalogSnapshot,
        changes: dict[str, CatalogEntry | None],
        problems: list[SkillProblem],
        progress: Progress | None,
    ) -> int:
        """Fetch and judge ``pending`` batch by batch into ``changes``; the bytes read."""
        read_bytes = 0
        for start in range(0, len(pending), self._batch):
            batch = pending[start : start + self._batch]
            results = await fetch_many(self._backend, [ref.name for ref in batch])
            read_bytes += await self._judge_batch(batch, results, old, changes, problems)
            if progress is not None:
                progress(start + len(batch), len(pending))
        return read_bytes

    def judge(
        self,
        document: SkillDocument,
        previous: CatalogEntry | None = None,
        withheld: Mapping[str, str] | None = None,
    ) -> CatalogEntry:
        """Judge one SKILL.md: limits, strictness, and the fields the backend withholds.

        ``withheld`` is asked of the backend when not given (on the caller's thread).
        """
        if withheld is None and self._withheld_of is not None:
            withheld = self._withheld_of(document.name)
        entry = judge_document(
            document,
            limits=self._limits,
            format_limits=self._format_limits,
            strict=self._strict,
            previous=previous,
        )
        entry = withhold(entry, withheld or {})  # also gives back fields approved since
        return entry if self.lock is None else self.lock.judge(entry, digest_of(document.data))

    def judge_listed(self, ref: SkillRef, withheld: Mapping[str, str] | None) -> CatalogEntry:
        """Judge a skill from the frontmatter its ref lists (:mod:`skills_core.catalog.listed`)."""
        entry = withhold(listed_entry(ref, strict=self._strict), withheld or {})
        return entry if self.lock is None else self.lock.judge(entry, ref.digest)

    def verify(self, entry: CatalogEntry, document: SkillDocument) -> CatalogEntry:
        """A listed ``entry`` holding ``document``, once it matches the listing (see there).

        Raises:
            EntryMismatchError: It does not.
            SkillNotFoundError: The skill changed since the last refresh.
        """
        return verified(entry, document, limits=self._limits, format_limits=self._format_limits)

    async def _judge_batch(
        self,
        listed: Sequence[ListedDocument],
        results: Sequence[ListedDocument | StorageError],
        old: CatalogSnapshot,
        changes: dict[str, CatalogEntry | None],
        problems: list[SkillProblem],
    ) -> int:
        """Judge one batch in a worker thread into ``changes``; how many bytes it read."""
        if not listed:
            return 0
        ask = self._withheld_of
        withheld = {item.name: ask(item.name) for item in listed} if ask is not None else {}
        judged, failures, read_bytes = await asyncio.to_thread(
            self._judged, listed, results, withheld, old
        )
        changes.update(judged)
        problems += failures
        return read_bytes

    def _judged(
        self,
        listing: Sequence[ListedDocument],
        results: Sequence[ListedDocument | StorageError],
        withheld: Mapping[str, Mapping[str, str]],
        old: CatalogSnapshot,
    ) -> tuple[dict[str, CatalogEntry | None], list[SkillProblem], int]:
        """What was fetched for each listed skill, as changes, and the bytes read.

        A ref as its own result is judged from the frontmatter it lists. Blocking: runs in a
        worker thread. ``withheld`` holds every skill's withheld fields when the backend
        withholds any.
        """
        changes: dict[str, CatalogEntry | None] = {}
        problems: list[SkillProblem] = []
        old_entries, keep_bodies = old.entries, self._keep_bodies
        read_bytes = 0
        for listed, result in zip(listing, results, strict=True):
            previous = old_entries.get(listed.name)
            if isinstance(result, SkillRef):
                changes[listed.name] = self.judge_listed(result, withheld.get(listed.name))
            elif isinstance(result, SkillDocument):
                read_bytes += len(result.data)
                fields = withheld.get(listed.name)
                entry = self.judge(_sharing_strings(result, listed), previous, fields)
                if _keeps_locked(previous, entry):  # a refused change: keep the locked bytes
                    refused = entry.errors[0]
                    note = f"{refused.message}; still serving the locked version"
                    problems.append(dataclasses.replace(refused, message=note))
                    continue
                changes[listed.name] = entry if keep_bodies else entry.without_body()
            elif isinstance(result, SkillNotFoundError):
                if previous is not None:  # vanished since the listing: it is simply gone
                    changes[listed.name] = None
            elif previous is not None and previous.loaded:
                problem = problem_from_error(previous.served_name, listed.location, result)
                note = f"{problem.message}; still serving the previous version"
                problems.append(SkillProblem(problem.name, problem.location, problem.code, note))
            else:
                changes[listed.name] = failed_read_entry(listed, result)
        return changes, problems, read_bytes


def _keeps_locked(previous: CatalogEntry | None, entry: CatalogEntry) -> bool:
    """True when ``entry`` refuses a change to a locked skill whose served bytes are held.

    A catalog that keeps metadata only holds no bytes to serve: the skill is refused.
    """
    return (
        previous is not None
        and previous.loaded
        and bool(previous.raw)
        and any(problem.code == codes.LOCK_MISMATCH for problem in entry.errors)
    )


def _sharing_strings(document: SkillDocument, listed: ListedDocument) -> SkillDocument:
    """``document`` with the listing's copies of its fingerprint and location, when equal.

    One copy of each string then serves the backend's listing and the catalog's entry.
    """
    if document is listed or document.fingerprint != listed.fingerprint:
        return document
    return document._replace(fingerprint=listed.fingerprint, location=listed.location)


def compare(
    old: CatalogSnapshot, new: CatalogSnapshot, changes: Changes, reads: Reads
) -> ReloadReport:
    """Name what a refresh changed, among the names ``changes`` could have moved."""
    names = old.affected_names(changes)
    before, after = old.loaded, new.loaded
    added = sorted(name for name in names if name in after and name not in before)
    removed = sorted(name for name in names if name in before and name not in after)
    changed = sorted(
        name
        for name in names
        if name in before and name in after and _differs(before[name], after[name])
    )
    moved = {*added, *changed}
    return ReloadReport(
        added=tuple(added),
        changed=tuple(changed),
        removed=tuple(removed),
        unchanged=tuple(itertools.filterfalse(moved.__contains__, new.names)),
        errors=new.errors,
        warnings=new.warnings,
        **reads,
    )


def _differs(before: CatalogEntry, after: CatalogEntry) -> bool:
    return before is not after and not before.same_content(after)
