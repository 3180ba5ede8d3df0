"""One catalog refresh: list the backend, load what changed, swap the new snapshot in, report.

:class:`Refresher` holds the catalog's current snapshot and is the one place that replaces it,
one refresh at a time. A failed listing, or anything unexpected while building the new snapshot,
keeps the last good snapshot and comes back as the report's ``failure``, never raised. A
listing that went without some of its sources (a composite's failed members) succeeds; each
source it went without is an error of the refresh with no skill name, ``LIST_FAILED`` (or
``SIGNATURE_REFUSED``), logged when it starts failing or its reason changes.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence

from backends.base import Backend, FileEntry
from backends.capabilities import ListedDocument, listing_failures
from backends.errors import SignatureError, SkillfsError, StorageError
from skills_core import codes
from skills_core.catalog.cache_link import CacheLink
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.file_digests import FileDigests
from skills_core.catalog.loading import Loader, Progress, compare
from skills_core.catalog.lock import SkillLock
from skills_core.catalog.report import ReloadReport
from skills_core.catalog.snapshot import EMPTY_SNAPSHOT, CatalogSnapshot, shadowing_of
from skills_core.format.problems import SkillProblem

logger = logging.getLogger("skillfs")


class Refresher:
    """A catalog's current snapshot, replaced by :meth:`refresh`, and its file digests.

    Args:
        backend: Where the skills live.
        loader: Lists the backend and judges what changed (and holds the lock, once read).
        cache: The catalog's share of the persistent cache, if it has one.
        file_lists: The file lists to forget once a listing succeeds.
        lock_file: A lock file to read on the first refresh (fails closed: unread, nothing is
            served).
    """

    def __init__(
        self,
        backend: Backend,
        loader: Loader,
        cache: CacheLink | None,
        file_lists: FileLists,
        lock_file: str | os.PathLike[str] | None,
    ) -> None:
        self.snapshot = EMPTY_SNAPSHOT
        self.file_digests = FileDigests()
        """Kept for the skills each refresh keeps, and saved with their entries."""
        self._backend = backend
        self._loader = loader
        self._cache = cache
        self._file_lists = file_lists
        self._lock_file = lock_file
        self._lock = asyncio.Lock()

    async def refresh(self, progress: Progress | None = None) -> ReloadReport:
        """List the backend and re-read only what changed; see the module docstring."""
        async with self._lock:
            old = base = self.snapshot
            try:
                if self._lock_file is not None:  # fails closed: no lock read, nothing served
                    self._loader.lock = await asyncio.to_thread(SkillLock.read, self._lock_file)
                    self._lock_file = None
                if old is EMPTY_SNAPSHOT and self._cache is not None:
                    base, listing = await self._cache.seed_while(
                        self._loader.listing, self.file_digests, self._loader.lock
                    )
                else:
                    listing = await self._loader.listing(cold=not old.entries)
            except Exception as exc:  # a failed listing must never lose the catalog
                return self._failed_refresh(old, exc, _listing_code(exc), "listing failed")
            self._file_lists.forget()
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
        """Load what changed since ``base`` and swap in the new snapshot, if any.

        ``base`` is ``old``, or on a first refresh what the persistent cache held.
        """
        changes, refresh_errors, reads = await self._loader.changes(listing, base, progress)
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
        if new is not old:
            self.file_digests.keep(new.entries)
        if self._cache is not None and new is not old:
            await self._cache.save(new, self.file_digests, seeded_from=base)
        if new is old:
            return ReloadReport(
                unchanged=old.names, errors=old.errors, warnings=old.warnings, **reads
            )
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
            if self._cache is not None and self.file_digests.unsaved:
                snapshot = self.snapshot
                await self._cache.save(snapshot, self.file_digests, seeded_from=snapshot)

    def _unavailable(self, old: CatalogSnapshot) -> tuple[SkillProblem, ...]:
        """The sources the listing went without, as problems; logged unless ``old`` had them."""
        problems = []
        for location, exc in listing_failures(self._backend):
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
        location = self._backend.location
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


class FileLists:
    """Each skill's file list as of the last refresh: asked of the backend once, then kept."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._lists: dict[str, tuple[FileEntry, ...]] = {}
        self._generation = 0

    async def of(self, folder: str) -> tuple[FileEntry, ...]:
        """The files of the skill in ``folder``, listed by the backend once per refresh."""
        files = self._lists.get(folder)
        if files is None:
            generation = self._generation
            files = tuple(await self._backend.files(folder))
            if generation == self._generation:  # no refresh since the listing began
                self._lists[folder] = files
        return files

    def forget(self) -> None:
        """Drop every list: the skills were listed again."""
        self._generation += 1
        self._lists.clear()


def _listing_code(exc: Exception) -> str:
    return codes.SIGNATURE_REFUSED if isinstance(exc, SignatureError) else codes.LIST_FAILED


def _is_bug(exc: Exception) -> bool:
    """True unless a storage error says all there is to say (else the traceback is worth it)."""
    return not isinstance(exc, StorageError)
