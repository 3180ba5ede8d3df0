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

The class is the catalog's face: a refresh runs in :mod:`skills_core.catalog.refresher`, and
reads of a skill's files and their digests (checked against the lock) in
:mod:`skills_core.catalog.skill_bytes` and :mod:`skills_core.catalog.skill_reads`.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import AsyncIterator, Sequence

from backends.base import Backend
from backends.errors import SkillNotFoundError, echoed
from backends.limits import DEFAULT_LIMITS, Limits
from skills_core.catalog.attachments import Attachable
from skills_core.catalog.bodies import BodyStore, default_body_cache
from skills_core.catalog.cache_link import CacheOption, cache_link
from skills_core.catalog.entries import CatalogEntry
from skills_core.catalog.file_lists import FileLists
from skills_core.catalog.loading import Loader, Progress
from skills_core.catalog.lock import LockSource, SkillLock
from skills_core.catalog.prompt import format_available_skills
from skills_core.catalog.refresher import Refresher
from skills_core.catalog.report import ReloadReport
from skills_core.catalog.skill_bytes import SkillBytes
from skills_core.catalog.skill_reads import SkillReads
from skills_core.catalog.snapshot import CatalogSnapshot
from skills_core.format.models import (
    DEFAULT_FORMAT_LIMITS,
    FormatLimits,
    Skill,
    SkillMetadata,
    SkillProblem,
)
from skills_core.telemetry import SOURCE, mark_error, span


class SkillCatalog(SkillBytes, Attachable):
    """The skills of one backend, kept current by :meth:`refresh`.

    ``SkillCatalog(open_backend(url))`` is the catalog of a path or URL. Whoever opens a
    backend closes it: the catalog never closes the backend it is given (its opener does,
    ``async with open_backend(url) as backend``).

    Args:
        backend: Where the skills live.
        strict: Refuse skills with any spec violation, as ``skillfs validate`` does; by
            default only a skill without readable frontmatter, a description or a usable
            name is refused (agentskills.io's lenient validation).
        limits: Storage limits applied while loading and reading (SKILL.md and resource
            sizes).
        format_limits: The frontmatter's limits (its size, YAML aliases and nesting).
        keep_bodies: Keep every SKILL.md in memory (the default: ``get()`` needs no storage
            request). ``False`` keeps metadata only and reads bodies on demand, checked
            against the fingerprint each skill was loaded from, never stale (see
            :mod:`skills_core.catalog.bodies`).
        body_cache: With ``keep_bodies=False``, how many SKILL.md files to keep, most recently
            read first; by default none for local folders, 1,024 for remote backends.
        cache: A persistent cache that a new process's first refresh starts from, so it
            re-reads only what changed since any process last looked: ``True`` for the default
            folder, a cache folder's path, or a
            :class:`~skills_core.catalog.cache_store.CatalogCache` (see
            :mod:`skills_core.catalog.cache_link`; never for memory backends).
            Skills it supplies hold no SKILL.md bytes: their bodies are read on demand, as
            with ``keep_bodies=False``.
        lock: A :class:`~skills_core.catalog.lock.SkillLock`, or the path of a lock file (read
            on the first refresh): serve only the skills it names, and each file only while its
            bytes match their locked digest (see :mod:`skills_core.catalog.lock`). With a
            ``cache``, its entries are kept under the lock's digest: a new process with the
            same lock reads no unchanged SKILL.md, and checks each one against the lock when
            it reads it.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        strict: bool = False,
        limits: Limits = DEFAULT_LIMITS,
        format_limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
        keep_bodies: bool = True,
        body_cache: int | None = None,
        cache: CacheOption = False,
        lock: LockSource | None = None,
    ) -> None:
        self._backend = backend
        self._limits = limits
        self._format_limits = format_limits
        file_lists = FileLists(backend)
        self._loader = Loader(
            backend,
            limits=limits,
            format_limits=format_limits,
            strict=strict,
            keep_bodies=keep_bodies,
        )
        if isinstance(lock, SkillLock):
            self._loader.lock = lock
        lock_file = None if lock is None or isinstance(lock, SkillLock) else lock
        self._cache = cache_link(
            cache,
            backend,
            strict=strict,
            limits=limits,
            format_limits=format_limits,
        )
        kept = default_body_cache(backend) if body_cache is None else body_cache
        self._keeps_bodies = keep_bodies and self._cache is None
        self._refresher = Refresher(backend, self._loader, self._cache, file_lists, lock_file)
        self._reads = SkillReads(
            backend,
            limits,
            self._loader,
            file_lists,
            bodies=BodyStore(backend, self._loader, kept),
            replace=self._refresher.replace,
        )

    def __repr__(self) -> str:
        return f"SkillCatalog({self._backend!r}, {len(self.snapshot.skills)} skills)"

    def __len__(self) -> int:
        return len(self.snapshot.skills)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.snapshot.loaded

    @property
    def backend(self) -> Backend:
        """The backend this catalog reads."""
        return self._backend

    @property
    def lock(self) -> SkillLock | None:
        """The lock this catalog serves by, once read (``None`` without one)."""
        return self._loader.lock

    @property
    def limits(self) -> Limits:
        """The storage limits applied while loading and reading."""
        return self._limits

    @property
    def format_limits(self) -> FormatLimits:
        """The frontmatter's limits applied while loading."""
        return self._format_limits

    @property
    def snapshot(self) -> CatalogSnapshot:
        """The current immutable snapshot (internal: what skillfs's adapters read)."""
        return self._refresher.snapshot

    @property
    def errors(self) -> tuple[SkillProblem, ...]:
        """Why each refused skill is refused, plus failures of the last refresh."""
        return self.snapshot.errors

    @property
    def warnings(self) -> tuple[SkillProblem, ...]:
        """Warnings about loaded skills."""
        return self.snapshot.warnings

    def list(self) -> Sequence[SkillMetadata]:
        """Metadata of every loaded skill, sorted by name."""
        return self.snapshot.skills

    def metadata(self, name: str) -> SkillMetadata:
        """The metadata of one loaded skill.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return self._loaded_entry(name)[1]

    def restricting_tools(self, name: str) -> tuple[str, ...]:
        """The ``allowed-tools`` rules that bound one loaded skill's tool calls.

        Those it grants, else those its SKILL.md gives but its source withholds (MCP, an
        untrusted project, unless approved): a withheld grant still restricts, never allowing
        every tool. Empty when the skill names none.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        entry, metadata = self._loaded_entry(name)
        return metadata.allowed_tools or dict(entry.withheld).get("allowed_tools", ())

    async def get(self, name: str) -> Skill:
        """One loaded skill with its body and its files as of the last refresh.

        The file list is asked of the backend once per refresh, then served from memory (see
        :mod:`skills_core.catalog.file_lists`).

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            LockMismatchError: The catalog has a lock, and a SKILL.md read again differs.
            EntryMismatchError: A skill its source listed has another SKILL.md (digest or
                frontmatter): refused from then on.
        """
        entry, metadata = self._loaded_entry(name)
        return await self._reads.skill(name, entry, metadata)

    def folder(self, name: str) -> str:
        """The folder (the backend's storage key) of a loaded skill.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return self._loaded_entry(name)[0].name

    @property
    def keeps_bodies(self) -> bool:
        """True when every SKILL.md loaded is held in memory (``keep_bodies``, no ``cache``).

        Skills known from their source's listing (MCP) hold theirs in no catalog: it is read
        when the skill is used.
        """
        return self._keeps_bodies

    def to_prompt(self, *, include_location: bool = True) -> str:
        """The ``<available_skills>`` XML block of every skill a model may invoke, escaped.

        Skills with ``disable-model-invocation: true`` are left out, as everywhere a model
        reads. ``include_location`` gives each SKILL.md's location (skills-ref's format); without it
        the block is google-adk's. To fit a budget or filter by path and tags, use
        :func:`skills_core.context.budget.catalog_prompt`.
        """
        snapshot = self.snapshot
        return format_available_skills(
            (meta.name, meta.description, snapshot.loaded[meta.name].location)
            if include_location
            else (meta.name, meta.description, None)
            for meta in snapshot.skills
            if meta.model_invocable
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

    async def refresh(self, *, progress: Progress | None = None) -> ReloadReport:
        """List the backend and re-read only what changed; see the module docstring.

        ``progress``, when given, is called with (SKILL.md files read, files to read) as
        new and changed skills are fetched, batch by batch (a local folder's first load reads
        them with its listing: nothing to report). Where OpenTelemetry is in use, each refresh
        is a ``skillfs.refresh`` span (:mod:`skills_core.telemetry`).
        """
        with span("skillfs.refresh", {SOURCE: self._backend.location}) as current:
            report = await self._refresher.refresh(progress)
            if current is not None:
                current.set_attributes(report.telemetry())
                if report.failure is not None:
                    mark_error(current, report.failure.code, report.failure.message)
        return report

    def _loaded_entry(self, name: str) -> tuple[CatalogEntry, SkillMetadata]:
        snapshot = self.snapshot
        entry = snapshot.loaded.get(name)
        if entry is None or entry.metadata is None:
            why = next((problem.message for problem in snapshot.errors if problem.name == name), "")
            raise SkillNotFoundError(
                f"no loaded skill named {echoed(name)!r}{': ' if why else ''}{why}",
                location=self._backend.location,
            )
        return entry, entry.metadata
