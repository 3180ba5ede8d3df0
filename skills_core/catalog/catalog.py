"""SkillCatalog: the incremental cache between a backend and its readers.

``refresh()`` lists the backend once, reuses every entry whose fingerprint is unchanged, fetches
and parses only new or changed SKILL.md files (a touched file with equal bytes counts as
unchanged), then swaps in a new immutable snapshot in one assignment, so concurrent readers
never see a half-applied refresh; when nothing changed the old snapshot stays as it is.

``refresh()`` never raises (but for cancellation): a failed listing, or anything unexpected
while building the new snapshot, leaves the last good snapshot in place and is reported in
``ReloadReport.failure``; each skill is judged under its own guard, so one skill that breaks
the loader is refused alone.

Skills are served under their frontmatter ``name`` (their folder's when they have none): one
name for every reader (``list``, ``get``, ``to_prompt``, reports, tools). The folder stays the
storage key for backend calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TypedDict

from backends.base import Backend, SkillDocument, SkillRef
from backends.capabilities import (
    FetchResult,
    ListedDocument,
    fetch_many,
    list_documents,
    withheld_fields,
)
from backends.errors import SkillNotFoundError
from backends.limits import DEFAULT_LIMITS, Limits, too_large
from skills_core import codes
from skills_core.catalog.entries import (
    CatalogEntry,
    failed_read_entry,
    judge_document,
    problem_from_error,
    unreadable_entry,
    withhold,
)
from skills_core.catalog.report import ReloadReport
from skills_core.catalog.snapshot import EMPTY_SNAPSHOT, CatalogSnapshot, shadowing_of
from skills_core.format.models import Skill, SkillMetadata
from skills_core.format.problems import SkillProblem
from skills_core.telemetry import SOURCE, mark_error, span

logger = logging.getLogger("skillfs")

_FETCH_BATCH = 512


class _Reads(TypedDict):
    """What one refresh read: the report's ``fetched``, ``bytes_read`` and ``requests``."""

    fetched: int
    bytes_read: int
    requests: int


class SkillCatalog:
    """The skills of one backend, kept current by :meth:`refresh`.

    Args:
        backend: Where the skills live.
        strict: Refuse skills with any spec violation, as ``skillfs validate`` does; by
            default only a skill without readable frontmatter, a description or a usable
            name is refused (agentskills.io's lenient validation).
        limits: Size and YAML limits applied while loading.
    """

    def __init__(
        self, backend: Backend, *, strict: bool = False, limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self._backend = backend
        self._strict = strict
        self._limits = limits
        self._snapshot = EMPTY_SNAPSHOT
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"SkillCatalog({self._backend!r}, {len(self._snapshot.skills)} skills)"

    def __len__(self) -> int:
        return len(self._snapshot.skills)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._snapshot.loaded

    @property
    def backend(self) -> Backend:
        """The backend this catalog reads."""
        return self._backend

    @property
    def limits(self) -> Limits:
        """The limits applied while loading and reading."""
        return self._limits

    @property
    def snapshot(self) -> CatalogSnapshot:
        """The current immutable snapshot (internal: what skillfs's adapters read)."""
        return self._snapshot

    @property
    def errors(self) -> tuple[SkillProblem, ...]:
        """Why each refused skill is refused, plus failures of the last refresh."""
        return self._snapshot.errors

    @property
    def warnings(self) -> tuple[SkillProblem, ...]:
        """Warnings about loaded skills."""
        return self._snapshot.warnings

    def list(self) -> Sequence[SkillMetadata]:
        """Metadata of every loaded skill, sorted by name."""
        return self._snapshot.skills

    def metadata(self, name: str) -> SkillMetadata:
        """The metadata of one loaded skill.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return self._loaded_entry(name)[1]

    async def get(self, name: str) -> Skill:
        """One loaded skill with its body and current file list.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        entry, metadata = self._loaded_entry(name)
        files = await self._backend.files(entry.name)
        return Skill(metadata, entry.body, entry.location, tuple(files))

    def folder(self, name: str) -> str:
        """The folder (the backend's storage key) of a loaded skill.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return self._loaded_entry(name)[0].name

    def skill_md(self, name: str) -> bytes:
        """The SKILL.md bytes a loaded skill was built from, without a storage request.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return self._loaded_entry(name)[0].raw

    async def read_resource(self, name: str, path: str, *, max_bytes: int | None = None) -> bytes:
        """Read one file of a loaded skill, confined to its folder and size-limited.

        Args:
            name: The skill's name.
            path: The file's path relative to the skill folder.
            max_bytes: A tighter size limit for this read; never looser than ``limits``.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            ResourceNotFoundError: No such file.
            UnsafePathError: The path would leave the skill folder.
            LimitExceededError: The file is over ``max_bytes`` or ``limits.max_resource_bytes``.
        """
        folder = self._loaded_entry(name)[0].name
        limit = self._limits.max_resource_bytes
        if max_bytes is not None:
            limit = min(limit, max_bytes)
        return await self._backend.read(folder, path, max_bytes=limit)

    def to_prompt(
        self,
        *,
        include_location: bool = True,
        budget: int | None = None,
        context_path: str | None = None,
        include_tags: Sequence[str] = (),
        exclude_tags: Sequence[str] = (),
        search_tool: str | None = "search_skills",
    ) -> str:
        """The ``<available_skills>`` XML block for a system prompt, escaped.

        Args:
            include_location: Give each SKILL.md's location (skills-ref's format).
            budget: The most characters the block may take; over it, descriptions shorten,
                then only names are listed, then only a count and ``search_tool``, with a
                note saying so (see :mod:`skills_core.context.budget`).
            context_path: The file being worked on: skills whose ``paths`` do not match it
                are left out.
            include_tags: When set, only skills with one of these tags.
            exclude_tags: Skills with any of these tags are left out.
            search_tool: The tool the note points to for skills not shown; ``None`` when the
                model has none (a listing by name is then as small as the block gets).
        """
        # Imported here: the context layer's modules import this one.
        from skills_core.context.budget import SkillFilter, catalog_prompt

        return catalog_prompt(
            self,
            include_location=include_location,
            budget=budget,
            skill_filter=SkillFilter(context_path, include_tags, exclude_tags),
            search_tool=search_tool,
        )

    async def watch(self, *, interval: float = 2.0) -> AsyncIterator[ReloadReport]:
        """Refresh whenever the skills may have changed and yield each meaningful report.

        Local folders are watched for filesystem events (with ``agent-skillfs[watch]``); other
        backends are polled every ``interval`` seconds.
        """
        # The watcher (and watchfiles) is imported on first use, off the event loop.
        watcher = await asyncio.to_thread(importlib.import_module, "skills_core.catalog.watch")
        async with contextlib.aclosing(watcher.watch_catalog(self, interval=interval)) as reports:
            async for report in reports:
                yield report

    async def refresh(self) -> ReloadReport:
        """List the backend and re-read only what changed; see the module docstring.

        Where OpenTelemetry is in use, each refresh is a ``skillfs.refresh`` span
        (:mod:`skills_core.telemetry`).
        """
        with span("skillfs.refresh", {SOURCE: self._backend.location}) as current:
            report = await self._refresh()
            if current is not None:
                current.set_attributes(report.telemetry())
                if report.failure is not None:
                    mark_error(current, report.failure.code, report.failure.message)
        return report

    async def _refresh(self) -> ReloadReport:
        async with self._lock:
            old = self._snapshot
            try:
                listing = await self._list(old)
            except Exception as exc:  # a failed listing must never lose the catalog
                return self._failed_refresh(old, exc, codes.LIST_FAILED, "listing failed")
            try:
                return await self._apply(listing, old)
            except Exception as exc:  # nor may anything unexpected after it
                return self._failed_refresh(old, exc, codes.REFRESH_FAILED, "refresh failed")

    async def _apply(self, listing: Sequence[ListedDocument], old: CatalogSnapshot) -> ReloadReport:
        """Load what the listing says changed and swap in the new snapshot, if any."""
        entries, refresh_errors, reads = await self._load(listing, old)
        shadowing = shadowing_of(listing)
        if _nothing_changed(old, entries, refresh_errors, shadowing):
            return ReloadReport(
                unchanged=old.names, errors=old.errors, warnings=old.warnings, **reads
            )
        new = CatalogSnapshot.build(entries, refresh_errors=refresh_errors, shadowing=shadowing)
        self._snapshot = new
        return _compare(old, new, reads)

    def _loaded_entry(self, name: str) -> tuple[CatalogEntry, SkillMetadata]:
        snapshot = self._snapshot
        entry = snapshot.loaded.get(name)
        if entry is None or entry.metadata is None:
            why = next((problem.message for problem in snapshot.errors if problem.name == name), "")
            raise SkillNotFoundError(
                f"no loaded skill named {name!r}{': ' if why else ''}{why}",
                location=self._backend.location,
            )
        return entry, entry.metadata

    def _failed_refresh(
        self, old: CatalogSnapshot, exc: Exception, code: str, what: str
    ) -> ReloadReport:
        location = self._backend.location
        kept = "no catalog yet" if old is EMPTY_SNAPSHOT else "kept the last good catalog"
        message = f"{what} ({kept}): {exc}"
        logger.warning("%s: %s", location, message, exc_info=exc)
        return ReloadReport(
            unchanged=old.names,
            errors=old.errors,
            warnings=old.warnings,
            failure=SkillProblem(None, location, code, message),
            cause=exc,
            requests=1,
        )

    async def _list(self, old: CatalogSnapshot) -> Sequence[ListedDocument]:
        """The backend's listing; on a first load, read in the same pass when it can."""
        backend = self._backend
        if not old.entries:
            listing = await list_documents(backend, max_bytes=self._limits.max_skill_md_bytes)
            if listing is not None:
                return listing
        return await backend.list()

    async def _load(
        self, listing: Sequence[ListedDocument], old: CatalogSnapshot
    ) -> tuple[dict[str, CatalogEntry], Sequence[SkillProblem], _Reads]:
        """Entries for the listing, problems of this refresh, and what it read (report fields)."""
        entries: dict[str, CatalogEntry] = {}
        read: list[SkillDocument] = []  # by the listing itself
        pending: list[SkillRef] = []
        max_size = self._limits.max_skill_md_bytes
        for item in listing:
            if isinstance(item, SkillDocument):
                read.append(item)
                continue
            previous = old.entries.get(item.name)
            if previous is not None and previous.fingerprint == item.fingerprint:
                entries[item.name] = previous
            elif item.error is not None:
                entries[item.name] = unreadable_entry(item, item.error)
            elif item.size is not None and item.size > max_size:
                oversize = too_large("SKILL.md", item.size, max_size, location=item.location)
                entries[item.name] = unreadable_entry(item, oversize)
            else:
                pending.append(item)
        listed: list[ListedDocument] = [*read, *pending]
        results: list[FetchResult] = [*read]
        for start in range(0, len(pending), _FETCH_BATCH):
            names = [ref.name for ref in pending[start : start + _FETCH_BATCH]]
            results += await fetch_many(self._backend, names)
        withheld = [withheld_fields(self._backend, item.name) for item in listed]
        built, refresh_errors = await asyncio.to_thread(self._judge, listed, results, withheld, old)
        entries.update((entry.name, entry) for entry in built)
        documents = [result for result in results if isinstance(result, SkillDocument)]
        read_bytes = sum(len(document.data) for document in documents)
        reads = _Reads(fetched=len(listed), bytes_read=read_bytes, requests=1 + len(pending))
        return entries, refresh_errors, reads

    def _judge(
        self,
        listing: Sequence[ListedDocument],
        results: Sequence[FetchResult],
        withheld: Sequence[Mapping[str, str]],
        old: CatalogSnapshot,
    ) -> tuple[Sequence[CatalogEntry], Sequence[SkillProblem]]:
        """Turn what was fetched for each listed skill into entries (runs in a worker thread)."""
        built: list[CatalogEntry] = []
        problems: list[SkillProblem] = []
        for listed, result, fields in zip(listing, results, withheld, strict=True):
            previous = old.entries.get(listed.name)
            if isinstance(result, SkillDocument):
                entry = judge_document(
                    result, limits=self._limits, strict=self._strict, previous=previous
                )
                built.append(withhold(entry, fields))
            elif isinstance(result, SkillNotFoundError):
                continue  # vanished since the listing: it is simply gone
            elif previous is not None and previous.loaded:
                problem = problem_from_error(previous.served_name, listed.location, result)
                note = f"{problem.message}; still serving the previous version"
                problems.append(SkillProblem(problem.name, problem.location, problem.code, note))
                built.append(previous)
            else:
                built.append(failed_read_entry(listed, result))
        return built, problems


def _compare(old: CatalogSnapshot, new: CatalogSnapshot, reads: _Reads) -> ReloadReport:
    """Name what a refresh changed; snapshot names are sorted, so the results are too."""
    if not old.names:  # a first load: everything is new
        return ReloadReport(added=new.names, errors=new.errors, warnings=new.warnings, **reads)
    before, after = set(old.names), set(new.names)
    common = [name for name in new.names if name in before]
    changed = {name for name in common if _differs(old.loaded[name], new.loaded[name])}
    return ReloadReport(
        added=tuple(name for name in new.names if name not in before),
        changed=tuple(name for name in common if name in changed),
        removed=tuple(name for name in old.names if name not in after),
        unchanged=tuple(name for name in common if name not in changed),
        errors=new.errors,
        warnings=new.warnings,
        **reads,
    )


def _differs(before: CatalogEntry, after: CatalogEntry) -> bool:
    return before is not after and not before.same_content(after)


def _nothing_changed(
    old: CatalogSnapshot,
    entries: dict[str, CatalogEntry],
    refresh_errors: Sequence[SkillProblem],
    shadowing: tuple[object, ...],
) -> bool:
    """True when every entry was reused as it was: the old snapshot can stay."""
    if refresh_errors or len(entries) != len(old.entries) or shadowing != old.shadowing:
        return False
    old_entries = old.entries
    return all(old_entries.get(name) is entry for name, entry in entries.items())
