"""One refresh: list the backend, judge what changed, swap the new snapshot in, report.

Steps: docs/catalog.md, "What refresh() does". :class:`Refresher` is the one place that
replaces a catalog's snapshot; a failure keeps the last good one and is the report's
``failure``, never raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from backends._base import Backend, FileEntry, SkillDocument, SkillRef
from backends._digests import digest_of
from backends._errors import (
    SignatureError,
    SkillfsError,
    SkillNotFoundError,
    StorageError,
    VerificationError,
)
from backends._limits import too_large
from backends.capabilities import (
    ListedDocument,
    change_events,
    fetch_many,
    list_documents,
    listing_failures,
)
from skills_core import _codes as codes
from skills_core._catalog.cache import CacheLink, FileDigests
from skills_core._catalog.entries import (
    CatalogEntry,
    Judging,
    failed_read_entry,
    judge_document,
    listed_entry,
    problem_from_error,
    refused,
    unreadable_entry,
    verified,
    withhold,
)
from skills_core._catalog.snapshot import (
    EMPTY_SNAPSHOT,
    CatalogSnapshot,
    Reads,
    ReloadReport,
    compare,
    shadowing_of,
)
from skills_core._errors import EntryMismatchError
from skills_core._format.models import SkillProblem
from skills_core._trust.policy import CatalogTrust

logger = logging.getLogger("skillfs")

FETCH_BATCH = 64
"""SKILL.md files fetched and judged together (at most held at once without ``keep_bodies``)."""
Progress = Callable[[int, int], None]
"""Long work's progress hook, called with (done, in all) as it goes."""


@dataclass(eq=False, repr=False)
class Refresher:
    """One catalog's snapshot, its SKILL.md reads on demand, its skills' file lists and digests.

    SKILL.md files read on demand are kept in an LRU of ``body_cache``, keyed by fingerprint.
    """

    backend: Backend
    judging: Judging
    keep_bodies: bool
    trust: CatalogTrust
    cache: CacheLink | None
    body_cache: int
    snapshot: CatalogSnapshot = EMPTY_SNAPSHOT
    file_digests: FileDigests = field(default_factory=FileDigests)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)
    _bodies: OrderedDict[tuple[str, str], bytes] = field(default_factory=OrderedDict, init=False)
    _file_lists: dict[str, tuple[FileEntry, ...]] = field(default_factory=dict, init=False)
    _generation: int = field(default=0, init=False)

    async def changes(
        self,
        listing: Sequence[ListedDocument],
        old: CatalogSnapshot,
        progress: Progress | None = None,
    ) -> tuple[dict[str, CatalogEntry | None], list[SkillProblem], Reads]:
        """What changed since ``old`` (``None`` for folders gone), the problems, what was read."""
        changes: dict[str, CatalogEntry | None] = {}
        read: list[SkillDocument] = []  # by the listing itself
        from_listing: list[SkillRef] = []  # listed with their frontmatter: judged unread
        pending: list[SkillRef] = []
        max_size = self.judging.limits.max_skill_md_bytes
        old_entries = old.entries
        withheld_of, lock = self.trust.withheld_of, self.trust.lock
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
                unread = item.frontmatter is not None and (lock is None or item.digest)
                (from_listing if unread else pending).append(item)
        if known < len(old_entries):  # some folders are gone
            listed = {item.name for item in listing}
            changes.update((folder, None) for folder in old_entries.keys() - listed)
        problems: list[SkillProblem] = []
        read_bytes = await self._judge_batch(read, read, old, changes, problems)
        await self._judge_batch(from_listing, from_listing, old, changes, problems)
        read_bytes += await self._fetch(pending, old, changes, problems, progress)
        if lock is not None:  # by name: a locked skill moved to another folder is not gone
            entries = {**old_entries, **changes}.values()
            problems += lock.missing({e.declared_name for e in entries if e is not None})
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
        for start in range(0, len(pending), FETCH_BATCH):
            batch = pending[start : start + FETCH_BATCH]
            results = await fetch_many(self.backend, [ref.name for ref in batch])
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
        """Judge one SKILL.md, withholding ``withheld`` (asked of the trust when not given)."""
        if withheld is None and self.trust.withheld_of is not None:
            withheld = self.trust.withheld_of(document.name)
        entry = withhold(judge_document(document, self.judging, previous), withheld or {})
        return self._locked(entry, document)

    def _locked(self, entry: CatalogEntry, source: SkillDocument | SkillRef) -> CatalogEntry:
        """``entry``, refused unless the lock (if any) names it with its SKILL.md's digest."""
        lock = self.trust.lock
        if lock is None or entry.metadata is None:
            return entry
        digest = source.digest if isinstance(source, SkillRef) else digest_of(source.data)
        problem = lock.problem(entry.metadata.name, entry.location, digest)
        return entry if problem is None else refused(entry, problem)

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
        ask = self.trust.withheld_of
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
        """What was fetched for each listed skill, as changes, and the bytes read (blocking)."""
        changes: dict[str, CatalogEntry | None] = {}
        problems: list[SkillProblem] = []
        old_entries, keep_bodies = old.entries, self.keep_bodies
        read_bytes = 0
        for listed, result in zip(listing, results, strict=True):
            previous = old_entries.get(listed.name)
            if isinstance(result, SkillRef):
                entry = listed_entry(result, strict=self.judging.strict)
                entry = withhold(entry, withheld.get(listed.name) or {})
                changes[listed.name] = self._locked(entry, result)
            elif isinstance(result, SkillDocument):
                read_bytes += len(result.data)
                fields = withheld.get(listed.name)
                entry = self.judge(_sharing_strings(result, listed), previous, fields)
                if (  # a refused change to a locked skill whose bytes are held: keep them
                    previous is not None
                    and previous.loaded
                    and previous.raw
                    and any(problem.code == codes.LOCK_MISMATCH for problem in entry.errors)
                ):
                    locked_out = entry.errors[0]
                    note = f"{locked_out.message}; still serving the locked version"
                    problems.append(replace(locked_out, message=note))
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

    async def refresh(self, progress: Progress | None = None) -> ReloadReport:
        """List the backend and re-read only what changed (see the module docstring)."""
        async with self._lock:
            old = base = self.snapshot
            try:
                await self.trust.ready()  # fails closed: no lock read, nothing served
                cold = not old.entries
                if old is EMPTY_SNAPSHOT and self.cache is not None:
                    seed = await self.cache.seed(self.file_digests, self.trust.lock)
                    cold, base = seed is None, old if seed is None else seed
                listing = None
                if cold and self.keep_bodies:  # SKILL.md files read in the listing pass, if it can
                    limit = self.judging.limits.max_skill_md_bytes
                    listing = await list_documents(self.backend, max_bytes=limit)
                if listing is None:
                    listing = await self.backend.list()
                await self.trust.learn(listing)
            except Exception as exc:  # a failed listing must never lose the catalog
                return self._failed_refresh(old, exc, _listing_code(exc), "listing failed")
            self._generation += 1  # file lists asked for before this refresh are not kept
            self._file_lists.clear()
            try:
                return await self._apply(listing, old, base, progress)
            except Exception as exc:  # nor may anything unexpected after it
                return self._failed_refresh(old, exc, codes.REFRESH_FAILED, "refresh failed")

    async def _apply(
        self,
        listing: Sequence[ListedDocument],
        old: CatalogSnapshot,
        base: CatalogSnapshot,
        progress: Progress | None,
    ) -> ReloadReport:
        """Load what changed since ``base`` (``old``, or the cache's) and swap the snapshot in."""
        changes, refresh_errors, reads = await self.changes(listing, base, progress)
        shadowing = shadowing_of(listing)
        errors = (*refresh_errors, *self._unavailable(old))
        if not changes and errors == base.refresh_errors and shadowing == base.shadowing:
            new = base
        elif not base.entries:
            entries = {folder: entry for folder, entry in changes.items() if entry is not None}
            new = CatalogSnapshot.build(entries, refresh_errors=errors, shadowing=shadowing)
        else:
            new = base.updated(changes, refresh_errors=errors, shadowing=shadowing)
        self.snapshot = new
        if new is old:
            return ReloadReport(
                unchanged=old.names, errors=old.errors, warnings=old.warnings, **reads
            )
        self.file_digests.keep(new.entries)
        if self.cache is not None:
            await self.cache.save(new, self.file_digests, seeded_from=base)
        if not old.entries:
            return ReloadReport(added=new.names, errors=new.errors, warnings=new.warnings, **reads)
        return compare(old, new, changes, reads)

    def replace(self, old: CatalogEntry, new: CatalogEntry) -> None:
        """Serve ``new`` in place of ``old`` unless a refresh replaced ``old`` meanwhile."""
        snapshot = self.snapshot
        if snapshot.entries.get(old.name) is old:
            self.snapshot = snapshot.updated(
                {old.name: new},
                refresh_errors=snapshot.refresh_errors,
                shadowing=snapshot.shadowing,
            )

    async def save_file_digests(self) -> None:
        """Save the file digests learned since the last save (with the entries), if any."""
        async with self._lock:
            if self.cache is not None and self.file_digests.unsaved:
                snapshot = self.snapshot
                await self.cache.save(snapshot, self.file_digests, seeded_from=snapshot)

    def _unavailable(self, old: CatalogSnapshot) -> tuple[SkillProblem, ...]:
        """The sources the listing went without, as problems; logged unless ``old`` had them."""
        problems = []
        for location, exc in listing_failures(self.backend):
            reason = str(exc)
            if isinstance(exc, SkillfsError) and exc.location in (None, location):
                reason = exc.message  # its location is the problem's
            message = f"source unavailable (tried again on every refresh): {reason}"
            problem = SkillProblem(None, location, _listing_code(exc), message)
            if problem not in old.refresh_errors:
                logger.warning("%s: %s", location, message, exc_info=_is_bug(exc))
            problems.append(problem)
        return tuple(problems)

    def _failed_refresh(
        self, old: CatalogSnapshot, exc: Exception, code: str, what: str
    ) -> ReloadReport:
        location = self.backend.location
        kept = "no catalog yet" if old is EMPTY_SNAPSHOT else "kept the last good catalog"
        message = f"{what} ({kept}): {exc}"
        logger.warning("%s: %s", location, message, exc_info=_is_bug(exc))
        return ReloadReport(
            unchanged=old.names,
            errors=old.errors,
            warnings=old.warnings,
            failure=SkillProblem(None, location, code, message),
            cause=exc,
            reads=1,
        )

    async def files(self, folder: str) -> tuple[FileEntry, ...]:
        """The files of the skill in ``folder``, listed by the backend once per refresh."""
        files = self._file_lists.get(folder)
        if files is None:
            generation = self._generation
            files = tuple(await self.backend.files(folder))
            if generation == self._generation:  # no refresh since the listing began
                self._file_lists[folder] = files
        return files

    async def held(self, entry: CatalogEntry) -> CatalogEntry:
        """A loaded ``entry`` holding its SKILL.md as stored now (judged again if it changed).

        Raises:
            SkillNotFoundError: The skill is gone, or no longer loads under its name.
            EntryMismatchError: A listed entry's SKILL.md is not the one its source listed
                (refused from then on).
            StorageError: It could not be read.
        """
        try:
            return await self._body_of(entry)
        except EntryMismatchError as exc:
            where = exc.location or entry.location
            problem = SkillProblem(entry.served_name, where, codes.ENTRY_MISMATCH, exc.message)
            self.replace(entry, refused(entry, problem))
            raise

    async def _body_of(self, entry: CatalogEntry) -> CatalogEntry:
        metadata = entry.metadata
        if metadata is None:
            raise SkillNotFoundError(f"skill {entry.name!r} is not loaded", location=entry.location)
        key = (entry.name, entry.fingerprint)
        raw = self._bodies.get(key)
        if raw is not None:
            self._bodies.move_to_end(key)
            return entry._replace(raw=raw)
        try:
            document = await self.backend.get(entry.name)
        except VerificationError as exc:
            if entry.listed is None:
                raise
            raise EntryMismatchError(exc.message, location=exc.location) from exc
        if entry.listed is not None:
            current = verified(entry, document, self.judging)
        else:
            current = entry._replace(raw=document.data)
            if document.fingerprint != entry.fingerprint or not entry.holds(document.data):
                current = self.judge(document)._replace(raw=document.data)
                if current.metadata is None or current.metadata.name != metadata.name:
                    raise SkillNotFoundError(
                        f"skill {metadata.name!r} changed since the last refresh and no longer "
                        "loads under that name: refresh the catalog",
                        location=entry.location,
                    )
        if self.body_cache > 0:
            self._bodies[(entry.name, document.fingerprint)] = document.data
            while len(self._bodies) > self.body_cache:
                self._bodies.popitem(last=False)
        return current


def _sharing_strings(document: SkillDocument, listed: ListedDocument) -> SkillDocument:
    """``document`` with the listing's copies of its fingerprint and location (one copy kept)."""
    if document is listed or document.fingerprint != listed.fingerprint:
        return document
    return document._replace(fingerprint=listed.fingerprint, location=listed.location)


def _listing_code(exc: Exception) -> str:
    return codes.SIGNATURE_REFUSED if isinstance(exc, SignatureError) else codes.LIST_FAILED


def _is_bug(exc: Exception) -> bool:
    """True unless a storage error says all there is to say (else the traceback is worth it)."""
    return not isinstance(exc, StorageError)


async def watch_refreshes(
    refresh: Callable[[], Awaitable[ReloadReport]], backend: Backend, *, interval: float
) -> AsyncGenerator[ReloadReport, None]:
    """Yield the first refresh's report, then each that changed something (docs/catalog.md)."""
    report = await refresh()
    yield report
    last_errors = report.errors
    async with contextlib.aclosing(refresh_triggers(backend, interval)) as triggers:
        async for stopped in triggers:
            report = await refresh()
            if stopped is not None and report.failure is None:
                where = stopped.location or backend.location
                message = f"{stopped.message}; refreshed, and asking for them again"
                problem = SkillProblem(None, where, codes.WATCH_INTERRUPTED, message)
                report = replace(report, failure=problem, cause=stopped)
            if report.has_changes or not report.ok or report.errors != last_errors:
                last_errors = report.errors
                yield report


async def refresh_triggers(
    backend: Backend, interval: float
) -> AsyncGenerator[StorageError | None, None]:
    """Yield ``None`` at each change event (or every ``interval`` seconds), or why they stopped.

    The events' first signal triggers a refresh too: what changed before the watch started.
    """
    watched = False
    while True:
        pending = asyncio.Event()
        pump = asyncio.create_task(_pump(backend, pending))
        try:
            while await _signalled(pending, pump):
                watched = True
                yield None
        finally:
            pump.cancel()
            await asyncio.wait({pump})
        stopped = _why_stopped(pump, backend)
        if stopped is None and not watched:  # the backend has no events: poll
            while True:
                await asyncio.sleep(interval)
                yield None
        watched = True
        yield stopped or StorageError("change events are not offered", location=backend.location)
        await asyncio.sleep(interval)


async def _pump(backend: Backend, pending: asyncio.Event) -> bool:
    """Set ``pending`` at each change signal, in one task (SDK clients need that); False if none."""
    events = await change_events(backend)
    if events is None:
        return False
    try:
        async for _ in events:
            pending.set()
    finally:
        close = getattr(events, "aclose", None)  # async generators need closing
        if close is not None:
            await close()
    return True


async def _signalled(pending: asyncio.Event, pump: asyncio.Task[bool]) -> bool:
    """Wait for a signal (True, all so far merged) or the pump's end (False)."""
    if not pending.is_set():
        waiter = asyncio.create_task(pending.wait())
        try:
            await asyncio.wait({waiter, pump}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
    if pending.is_set():
        pending.clear()
        return True
    return False


def _why_stopped(pump: asyncio.Task[bool], backend: Backend) -> StorageError | None:
    """Why the events ended; ``None`` when there were none."""
    error = pump.exception()
    if isinstance(error, StorageError):
        stopped = error
    elif error is not None:  # a foreign error: worth its traceback, never the watch's end
        logger.error("%s: change events failed", backend.location, exc_info=error)
        stopped = StorageError(f"change events failed: {error!r}", location=backend.location)
    elif pump.result():
        stopped = StorageError("the source ended its change events", location=backend.location)
    else:
        return None
    logger.warning(
        "%s: %s; refreshing, and asking for them again", backend.location, stopped.message
    )
    return stopped
