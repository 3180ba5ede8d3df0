"""Skill bundles: the skills a catalog serves, in one deterministic zip (docs/storage/zip.md)."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import zipfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, TypedDict, Unpack, cast
from urllib.parse import unquote, urlsplit

from backends import Backend, open_backend
from backends._errors import LimitExceededError, UnsafePathError, UnsupportedSourceError
from backends._limits import DEFAULT_LIMITS, Limits
from backends._paths import SKILL_MD_NAMES, is_within
from backends._remote.archives import MANIFEST_FORMAT, MANIFEST_NAME, bundle_refusals
from backends._remote.output_folder import write_bytes
from backends._remote.urls import check_names_something, last_link, protocol_of
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.loading import Progress
from skills_core._errors import InvalidSkillsError, LockMismatchError
from skills_core._format.models import SkillMetadata, SkillProblem
from skills_core._trust.lock import refusal
from skills_core._trust.policy import TrustPolicy

_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
_MODE = 0o644
_EXECUTABLE_MODE = 0o755
_UNIX = 3
_LEVEL = 9


@dataclass(frozen=True, slots=True)
class Bundle:
    """A built bundle; ``files`` counts its skill files (the manifest excluded)."""

    data: bytes
    skills: tuple[str, ...]
    files: int
    skipped: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()
    location: str | None = None

    @property
    def sha256(self) -> str:
        """The archive's SHA-256, hex."""
        return hashlib.sha256(self.data).hexdigest()


class PackOptions(TypedDict, total=False):
    """How :func:`build_bundle` and :func:`~skills_core._bundle.publish.build_publication` read.

    ``strict`` judges as ``skillfs validate`` does; ``skip_invalid`` leaves refused skills out
    instead of raising; ``progress`` hears (skills packed, in all). Each file must fit
    ``limits.max_bundle_entry_bytes`` and each archive load under ``limits``. With a lock in
    ``trust``, only the skills it pins are packed, each only when every file matches it
    (others: ``NOT_LOCKED``, ``LOCK_MISMATCH``).
    """

    strict: bool
    skip_invalid: bool
    progress: Progress | None
    limits: Limits
    max_concurrency: int
    trust: TrustPolicy | None


async def build_bundle(backend: Backend, **options: Unpack[PackOptions]) -> Bundle:
    """Pack every skill a catalog of ``backend`` serves (``options``: :class:`PackOptions`).

    Raises:
        InvalidSkillsError: The verdict refuses some skills and ``skip_invalid`` is false.
        LimitExceededError: A file, or the archive, breaks a bundle limit.
        StorageError: The source could not be listed or read.
    """
    read = await read_skill_files(backend, **options)
    members = {
        f"{name}/{path}": data for name, files in read.files.items() for path, data in files.items()
    }
    zipped = {**members, MANIFEST_NAME: _manifest(read)}
    data = await asyncio.to_thread(deterministic_zip, zipped, read.executables)
    where = f"bundle of {backend.location}"
    refused = await asyncio.to_thread(bundle_refusals, data, limits=read.limits, location=where)
    if refused:
        raise LimitExceededError(
            f"the bundle would not load: {refused[0].message}", location=refused[0].location
        )
    names = tuple(meta.name for meta in read.skills)
    return Bundle(data, names, len(members), read.skipped, read.warnings)


async def write_bundle(
    source: str | os.PathLike[str] | Backend,
    out: str | os.PathLike[str],
    *,
    strict: bool = False,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    limits: Limits = DEFAULT_LIMITS,
    trust: TrustPolicy | None = None,
    out_options: Mapping[str, Any] | None = None,
    **source_options: Any,
) -> Bundle:
    """Bundle the skills of ``source`` (a path, URL or backend) into ``out`` (a path or URL).

    Options as :class:`PackOptions`; ``out_options`` and ``source_options`` are storage
    options. ``out`` must not be inside the source; a replaced local file keeps its mode.

    Raises:
        UnsupportedSourceError, UnsafePathError: As :func:`check_output`.
        InvalidSkillsError, LimitExceededError, StorageError: As :func:`build_bundle`, or
            the archive could not be written.
    """
    source = await opened_for(os.fspath(out), source, **source_options)
    bundle = await build_bundle(
        source,
        strict=strict,
        skip_invalid=skip_invalid,
        progress=progress,
        limits=limits,
        trust=trust,
    )
    location = await write_bytes(os.fspath(out), bundle.data, **(out_options or {}))
    return replace(bundle, location=location)


class SkillFiles(NamedTuple):
    """The skills to pack, their files by name and path, the executables' ``name/path``, limits."""

    skills: Sequence[SkillMetadata]
    files: dict[str, dict[str, bytes]]
    executables: set[str]
    skipped: tuple[SkillProblem, ...]
    warnings: tuple[SkillProblem, ...]
    limits: Limits


async def read_skill_files(
    backend: Backend,
    *,
    strict: bool = False,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    limits: Limits = DEFAULT_LIMITS,
    max_concurrency: int = 16,
    trust: TrustPolicy | None = None,
) -> SkillFiles:
    """Every file of every skill a catalog of ``backend`` serves (see :class:`PackOptions`).

    Raises:
        InvalidSkillsError, LimitExceededError, StorageError: As :func:`build_bundle`.
    """
    files_limit = replace(limits, max_read_bytes=limits.max_bundle_entry_bytes)
    catalog = SkillCatalog(backend, strict=strict, limits=files_limit, trust=trust)
    report = await catalog.refresh()
    report.raise_for_failure()
    served = catalog.list()  # read even when some are refused: every problem is reported
    semaphore = asyncio.Semaphore(max_concurrency)
    packed = 0
    executables: set[str] = set()
    refused: list[SkillProblem] = []

    async def read(name: str, path: str) -> bytes:
        if path in SKILL_MD_NAMES:  # held, or read once by get() (a source's listed skill)
            return await catalog.read_skill_md(name)
        async with semaphore:
            return await catalog.read_resource(name, path)

    async def pack(name: str) -> dict[str, bytes]:
        nonlocal packed
        entries = (await catalog.get(name)).files
        reads = (read(name, entry.path) for entry in entries)
        contents = await asyncio.gather(*reads, return_exceptions=True)
        packed += 1
        if progress is not None:
            progress(packed, len(served))
        failures = [data for data in contents if isinstance(data, BaseException)]
        for failure in failures:  # another failure first: a lock refusal is the least of them
            if not isinstance(failure, LockMismatchError):
                raise failure
        if failures:
            refused.extend(refusal(name, cast("LockMismatchError", fail)) for fail in failures)
            return {}
        executables.update(f"{name}/{entry.path}" for entry in entries if entry.executable)
        read_files = cast("list[bytes]", contents)
        return {entry.path: data for entry, data in zip(entries, read_files, strict=True)}

    packs = await asyncio.gather(*(pack(meta.name) for meta in served))
    files = {meta.name: found for meta, found in zip(served, packs, strict=True)}
    problems = (*report.errors, *sorted(refused, key=lambda problem: problem.subject))
    if problems and not skip_invalid:
        raise InvalidSkillsError(problems, location=backend.location)
    gone = {problem.subject for problem in refused}
    skills = [meta for meta in served if meta.name not in gone]
    return SkillFiles(skills, files, executables, problems, report.warnings, limits)


def _mode(path: str, executables: Collection[str]) -> int:
    return _EXECUTABLE_MODE if path in executables else _MODE


def _manifest(read: SkillFiles) -> bytes:
    """Each skill with the path, size, sha256 and mode of its files."""
    listed = [
        {
            "name": meta.name,
            "description": meta.description,
            "files": [
                {
                    "path": path,
                    "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "mode": f"{_mode(f'{meta.name}/{path}', read.executables):04o}",
                }
                for path, data in sorted(read.files[meta.name].items())
            ],
        }
        for meta in read.skills
    ]
    manifest = {"format": MANIFEST_FORMAT, "skills": listed}
    return (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def deterministic_zip(members: Mapping[str, bytes], executables: Collection[str]) -> bytes:
    """A zip of ``members`` that depends on nothing but their paths, bytes and modes (blocking)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(members):
            info = zipfile.ZipInfo(path, date_time=_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = _UNIX
            info.external_attr = _mode(path, executables) << 16
            archive.writestr(info, members[path], compresslevel=_LEVEL)
    return buffer.getvalue()


async def opened_for(
    out: str, source: str | os.PathLike[str] | Backend, *, folder: bool = False, **options: Any
) -> Backend:
    """``source`` opened (with storage ``options``) once ``out`` is checked against it.

    Raises:
        UnsupportedSourceError, UnsafePathError: As :func:`check_output`.
    """
    if isinstance(source, str | os.PathLike):  # opening may import a filesystem's modules
        source = await asyncio.to_thread(open_backend, source, **options)
    await asyncio.to_thread(check_output, out, source.location, folder=folder)
    return source


def check_output(out: str, source: str, *, folder: bool = False) -> None:
    """Refuse an output that names nothing, is a folder, or lies inside ``source`` (blocking).

    ``folder``: ``out`` is a publication's folder, not a bundle's file. Paths are compared
    with symlinks resolved (but the output's own name), URLs as text on the same storage.

    Raises:
        UnsupportedSourceError: ``out`` is empty, names no bucket or repository, or is a
            folder (a file, for a publication).
        UnsafePathError: ``out`` is ``source`` or inside it.
    """
    if not out.strip():
        example = "-o site" if folder else "-o skills.zip"
        what = "folder or bucket to publish to" if folder else "zip to write"
        raise UnsupportedSourceError(f"the output is empty: name the {what}, e.g. {example}")
    check_names_something(out)
    out_path, source_path = _local_path(out), _local_path(source)
    if out_path is not None and folder and os.path.isfile(out_path):
        raise UnsupportedSourceError(
            "the output is a file: name the folder to publish to", location=out
        )
    if out_path is not None and not folder and os.path.isdir(out_path):
        example = os.path.join(out, "skills.zip")
        raise UnsupportedSourceError(
            f"the output is a folder: name the zip to write, e.g. {example}", location=out
        )
    if out_path is not None and source_path is not None:
        inside = is_within(os.path.realpath(source_path), _as_written(out_path))
    elif out_path is None and source_path is None:
        inside = _url_within(out, source)
    else:
        inside = False
    if inside:
        what = "publication" if folder else "bundle"
        raise UnsafePathError(
            f"the {what} would be written inside its source {source}: write it elsewhere",
            location=out,
        )


def _local_path(url: str) -> str | None:
    if protocol_of(url) != "file" or "::" in url:
        return None
    return unquote(urlsplit(url).path) if url.startswith("file:") else url


def _as_written(path: str) -> str:
    """The path a write replaces: its folder resolved, its own name kept (a link is replaced)."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


def _url_within(out: str, source: str) -> bool:
    target, root = last_link(out).rstrip("/"), last_link(source).rstrip("/")
    if root.endswith(":") or protocol_of(target) != protocol_of(root):
        return False  # a store's whole root (memory://) or another store
    return target == root or target.startswith(f"{root}/")
