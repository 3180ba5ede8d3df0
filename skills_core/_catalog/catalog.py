"""SkillCatalog: the incremental cache between a backend and its readers (docs/catalog.md).

Skills are served under their frontmatter ``name``; the folder stays the storage key.
"""

from __future__ import annotations

import asyncio
import functools
import html
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from backends._base import Backend, FileEntry
from backends._digests import digest_off_loop, digest_text, is_digest
from backends._errors import SkillNotFoundError, echoed
from backends._limits import DEFAULT_LIMITS, Limits
from backends._local import LocalBackend
from backends._memory import MemoryBackend
from backends._paths import SKILL_MD_NAMES, skill_md_name
from skills_core import _codes as codes
from skills_core._catalog.cache import CacheLink, CacheOption, cache_link
from skills_core._catalog.entries import CatalogEntry, Judging, entry_digest
from skills_core._catalog.loading import Progress, Refresher, watch_refreshes
from skills_core._catalog.snapshot import CatalogSnapshot, ReloadReport
from skills_core._errors import LockMismatchError
from skills_core._format.models import (
    DEFAULT_FORMAT_LIMITS,
    FormatLimits,
    Skill,
    SkillMetadata,
    SkillProblem,
)
from skills_core._telemetry import SOURCE, mark_error, span
from skills_core._trust.lock import LockedSkill, SkillLock, refusal
from skills_core._trust.policy import CatalogTrust, TrustPolicy

T = TypeVar("T")

REMOTE_BODY_CACHE = 1024
"""SKILL.md files a catalog that does not hold them keeps by default for a remote backend."""


class SkillCatalog:
    """The skills of one backend, kept current by :meth:`refresh`; it never closes the backend.

    Its options are docs/catalog.md's (``trust``: docs/trust.md). Every read of one skill by
    name raises ``SkillNotFoundError`` when no loaded skill has it.

    Raises:
        UnsupportedSourceError: ``trust`` has keys, and the backend reads no published index.
        SignatureError: A key of ``trust`` is not an Ed25519 public key.
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
        trust: TrustPolicy | None = None,
    ) -> None:
        self._backend = backend
        self._judging = Judging(strict, limits, format_limits)
        self._cache = cache_link(cache, backend, self._judging)
        sequences = None if self._cache is None else self._cache.cache
        self._trust = CatalogTrust(trust or TrustPolicy(), backend, sequences)
        if body_cache is None:
            local = isinstance(backend, LocalBackend | MemoryBackend)
            body_cache = 0 if local else REMOTE_BODY_CACHE
        self._refresher = Refresher(
            backend, self._judging, keep_bodies, self._trust, self._cache, body_cache
        )
        self._attached: dict[Hashable, Any] = {}

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
    def trust(self) -> TrustPolicy:
        """What this catalog trusts (its lock, keys and approvals)."""
        return self._trust.policy

    @property
    def lock(self) -> SkillLock | None:
        """The lock this catalog serves by, once read (``None`` without one)."""
        return self._trust.lock

    @property
    def limits(self) -> Limits:
        """The storage limits applied while loading and reading."""
        return self._judging.limits

    @property
    def format_limits(self) -> FormatLimits:
        """The frontmatter's limits applied while loading."""
        return self._judging.format_limits

    @property
    def snapshot(self) -> CatalogSnapshot:
        """The current immutable snapshot (internal)."""
        return self._refresher.snapshot

    @property
    def errors(self) -> tuple[SkillProblem, ...]:
        """Why each refused skill is refused, plus failures of the last refresh."""
        return self.snapshot.errors

    @property
    def warnings(self) -> tuple[SkillProblem, ...]:
        """Warnings about loaded skills."""
        return self.snapshot.warnings

    @property
    def keeps_bodies(self) -> bool:
        """True when every SKILL.md loaded is held (``keep_bodies``, no ``cache``; MCP aside)."""
        return self._refresher.keep_bodies and self._cache is None

    @property
    def derived_store(self) -> CacheLink | None:
        """The persistent cache, which keeps values derived from skills by digest (internal)."""
        return self._cache

    def attached(self, key: Hashable, make: Callable[[], T]) -> T:
        """The value kept on this catalog under ``key``, made by ``make()`` when first asked for.

        Per-catalog state of the layers above (search indexes, refresh clocks) lives here.
        """
        value = self._attached.get(key)
        if value is None:
            value = self._attached.setdefault(key, make())
        return cast(T, value)

    def list(self) -> Sequence[SkillMetadata]:
        """Metadata of every loaded skill, sorted by name."""
        return self.snapshot.skills

    def metadata(self, name: str) -> SkillMetadata:
        """The metadata of one loaded skill."""
        return self._loaded_entry(name)[1]

    def folder(self, name: str) -> str:
        """The folder (the backend's storage key) of a loaded skill."""
        return self._loaded_entry(name)[0].name

    def restricting_tools(self, name: str) -> tuple[str, ...]:
        """The ``allowed-tools`` rules that bound a skill's tool calls, withheld ones included."""
        entry, metadata = self._loaded_entry(name)
        return metadata.allowed_tools or dict(entry.withheld).get("allowed_tools", ())

    async def get(self, name: str) -> Skill:
        """One loaded skill with its body and its files as of the last refresh.

        Raises:
            LockMismatchError: The catalog has a lock, and a SKILL.md read again differs.
            EntryMismatchError: A listed skill's SKILL.md differs: refused from then on.
        """
        entry, metadata = self._loaded_entry(name)
        if not entry.raw:
            held = await self._read_body(name, entry)
            assert held.metadata is not None
            entry, metadata = held, held.metadata
        return Skill(metadata, entry.body, entry.location, await self._refresher.files(entry.name))

    async def files(self, name: str) -> tuple[FileEntry, ...]:
        """The files of one loaded skill as :meth:`get` gives them, listed once per refresh."""
        return await self._refresher.files(self._loaded_entry(name)[0].name)

    def skill_md_digest(self, name: str) -> str:
        """The ``sha256:`` digest of the SKILL.md a loaded skill was built from, without a read."""
        return digest_text(entry_digest(self._loaded_entry(name)[0]))

    async def file_digests(
        self, name: str, files: Sequence[FileEntry], *, max_bytes: int | None = None
    ) -> Sequence[tuple[str, int]]:
        """The ``sha256:`` digest and size of each of ``files``; only files not known are read.

        Raises:
            StorageError: A file could not be read.
        """
        read = functools.partial(self.read_resource, name, max_bytes=max_bytes)
        return await self._refresher.file_digests.of(self.folder(name), files, read)

    async def save_file_digests(self) -> None:
        """Save the file digests learned since the last save in the persistent cache, if any."""
        await self._refresher.save_file_digests()

    async def with_body(self, entry: CatalogEntry) -> CatalogEntry:
        """A loaded ``entry`` holding its SKILL.md; raises as :meth:`Refresher.held` (internal)."""
        return entry if entry.raw else await self._refresher.held(entry)

    def skill_md(self, name: str) -> bytes:
        """The SKILL.md bytes a loaded skill was built from, without a storage request.

        Raises:
            RuntimeError: The catalog does not hold it: use :meth:`read_skill_md`.
        """
        raw = self._loaded_entry(name)[0].raw
        if not raw:
            raise RuntimeError("this catalog does not hold that SKILL.md: await read_skill_md")
        return raw

    async def read_skill_md(self, name: str) -> bytes:
        """The SKILL.md bytes of a loaded skill: held ones, or read as :meth:`get` reads them.

        Raises:
            StorageError: A catalog keeping metadata only could not read it.
            LockMismatchError: The catalog has a lock, and the SKILL.md read differs.
        """
        entry = self._loaded_entry(name)[0]
        return entry.raw or (await self._read_body(name, entry)).raw

    async def read_resource(self, name: str, path: str, *, max_bytes: int | None = None) -> bytes:
        """Read one file of a loaded skill, confined to its folder and size-limited.

        ``max_bytes`` tightens ``limits.max_read_bytes`` for this read.

        Raises:
            ResourceNotFoundError: No such file.
            UnsafePathError: The path would leave the skill folder.
            LimitExceededError: The file is over ``max_bytes`` or ``limits.max_read_bytes``.
            LockMismatchError: The catalog has a lock, and the file is not in it or differs.
        """
        entry = self._loaded_entry(name)[0]
        if entry.listed is not None and not entry.raw:
            await self._refresher.held(entry)  # verified first: no file of a refused skill is read
        limit = self._judging.limits.max_read_bytes
        limit = limit if max_bytes is None else min(limit, max_bytes)
        data = await self._backend.read(entry.name, path, max_bytes=limit)
        lock = self._trust.lock
        if lock is None:
            return data
        return await lock.verify(name, path, data, location=entry.location)

    def to_prompt(self, *, include_location: bool = True) -> str:
        """The ``<available_skills>`` block of every model-invocable skill, with locations or not.

        To fit a budget, use :func:`skills_core.context._budget.catalog_prompt`.
        """
        snapshot = self.snapshot
        return format_available_skills(
            (meta.name, meta.description, snapshot.loaded[meta.name].location)
            if include_location
            else (meta.name, meta.description, None)
            for meta in snapshot.skills
            if meta.model_invocable
        )

    def watch(self, *, interval: float = 2.0) -> AsyncIterator[ReloadReport]:
        """Refresh on change events (else every ``interval`` seconds); yield meaningful reports."""
        return watch_refreshes(self.refresh, self._backend, interval=interval)

    async def refresh(self, *, progress: Progress | None = None) -> ReloadReport:
        """List the backend, re-read only what changed, swap the new snapshot in; never raises.

        ``progress`` hears (SKILL.md files read, files to read). Each refresh is a
        ``skillfs.refresh`` span where OpenTelemetry is in use.
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

    async def _read_body(self, name: str, entry: CatalogEntry) -> CatalogEntry:
        """``entry`` holding its SKILL.md, checked against the lock when there is one."""
        held = await self._refresher.held(entry)
        lock = self._trust.lock
        if lock is not None:
            await lock.verify_skill_md(name, held.raw, location=entry.location)
        return held


def format_available_skills(
    skills: Iterable[tuple[str, str | None, str | None]],
    *,
    note: str | None = None,
    lines: Sequence[tuple[str, str]] = (),
    names: Sequence[str] = (),
) -> str:
    """The ``<available_skills>`` block of ``(name, description, location)`` triples, escaped.

    With locations this is skills-ref's format; without (``None``), google-adk's. A ``note``
    comes first; a budget's compact forms follow: ``lines`` as ``name: description``, then
    ``names`` on one comma-separated line.
    """
    parts = ["<available_skills>"]
    if note is not None:
        parts += ["<note>", html.escape(note), "</note>"]
    for name, description, location in skills:
        parts += ["<skill>", "<name>", html.escape(name), "</name>"]
        if description is not None:
            parts += ["<description>", html.escape(description), "</description>"]
        if location is not None:
            parts += ["<location>", html.escape(location), "</location>"]
        parts.append("</skill>")
    parts += (html.escape(f"{name}: {text}", quote=False) for name, text in lines)
    if names:
        parts.append(html.escape(", ".join(names), quote=False))
    parts.append("</available_skills>")
    return "\n".join(parts)


@dataclass
class Verdict:
    """Every problem of one skill (``skillfs validate``), under the name it gives itself."""

    name: str
    folder: str
    location: str
    errors: list[SkillProblem] = field(default_factory=list)
    warnings: list[SkillProblem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when the skill has no error."""
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "name": self.name,
            "folder": self.folder,
            "location": self.location,
            "valid": self.valid,
            "errors": [problem.to_dict() for problem in self.errors],
            "warnings": [problem.to_dict() for problem in self.warnings],
        }


def verdicts_of(catalog: SkillCatalog) -> list[Verdict]:
    """One verdict per listed skill, by name then folder, with every problem filed by folder."""
    entries = catalog.snapshot.entries
    verdicts = {
        folder: Verdict(
            entry.declared_name, folder, entry.location, list(entry.errors), list(entry.warnings)
        )
        for folder, entry in entries.items()
    }
    own = {problem for entry in entries.values() for problem in (*entry.errors, *entry.warnings)}

    def verdict_for(problem: SkillProblem) -> Verdict:
        folder = problem.subject
        return verdicts.setdefault(folder, Verdict(folder, folder, problem.location or folder))

    for problem in catalog.errors:
        if problem not in own:
            verdict_for(problem).errors.append(problem)
    for problem in catalog.warnings:
        if problem not in own:
            verdict_for(problem).warnings.append(problem)
    return sorted(verdicts.values(), key=lambda verdict: (verdict.name, verdict.folder))


_PARALLEL_SKILLS = 16


async def lock_of(catalog: SkillCatalog, progress: Progress | None = None) -> SkillLock:
    """The lock of every skill ``catalog`` serves now (refresh it first).

    Files with a listed ``sha256:`` digest (MCP) are locked from it; others are read and hashed.
    ``progress`` hears how many skills were hashed.

    Raises:
        StorageError: A file of a served skill could not be read.
    """
    skills = await _each_skill(catalog, lambda name: _locked_skill(catalog, name), progress)
    return SkillLock(skills, source=catalog.backend.location)


async def lock_problems(
    catalog: SkillCatalog, progress: Progress | None = None
) -> list[SkillProblem]:
    """Each file of a served skill that differs, is not locked or is gone, as a ``LOCK_MISMATCH``.

    ``progress`` hears how many skills were checked.

    Raises:
        StorageError: A file of a served skill could not be read.
    """
    lock = catalog.lock
    if lock is None:
        return []
    checks = await _each_skill(catalog, lambda name: _skill_problems(catalog, lock, name), progress)
    return [problem for found in checks for problem in found]


async def _each_skill(
    catalog: SkillCatalog,
    work: Callable[[str], Awaitable[T]],
    progress: Progress | None,
) -> list[T]:
    """``work`` on every served skill, :data:`_PARALLEL_SKILLS` at a time, in name order."""
    gate = asyncio.Semaphore(_PARALLEL_SKILLS)
    names = [meta.name for meta in catalog.list()]
    done = 0

    async def one(name: str) -> T:
        nonlocal done
        async with gate:
            result = await work(name)
        done += 1
        if progress is not None:
            progress(done, len(names))
        return result

    return await asyncio.gather(*(one(name) for name in names))


async def _skill_problems(catalog: SkillCatalog, lock: SkillLock, name: str) -> list[SkillProblem]:
    skill = await catalog.get(name)
    found = []
    for file in skill.files:
        if file.path in SKILL_MD_NAMES:  # judged against the lock as it loaded
            continue
        try:
            await catalog.read_resource(name, file.path)
        except LockMismatchError as exc:
            found.append(refusal(name, exc))
    gone = lock.skills[name].files.keys() - {*(file.path for file in skill.files), *SKILL_MD_NAMES}
    message = "{} is locked in {} but gone from the skill"
    found += (
        SkillProblem(name, skill.location, codes.LOCK_MISMATCH, message.format(path, lock.location))
        for path in sorted(gone)
    )
    return found


async def _locked_skill(catalog: SkillCatalog, name: str) -> LockedSkill:
    skill = await catalog.get(name)
    skill_md = skill_md_name([file.path for file in skill.files])
    files: dict[str, str] = {}
    if skill_md is None:  # a backend that lists no SKILL.md: lock the bytes served
        files["SKILL.md"] = await digest_off_loop(await catalog.read_skill_md(name))
    for file in skill.files:
        if is_digest(file.fingerprint):
            files[file.path] = file.fingerprint
        elif file.path == skill_md:
            files[file.path] = await digest_off_loop(await catalog.read_skill_md(name))
        else:
            files[file.path] = await digest_off_loop(await catalog.read_resource(name, file.path))
    return LockedSkill(name, catalog.folder(name), skill.location, files)
