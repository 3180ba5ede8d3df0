"""Skill bundles: every valid skill of a source in one deterministic zip, with a manifest.

The same skills always give byte-identical archives, whatever storage they came from: members
sorted by path, one fixed timestamp (1980-01-01), fixed permissions and compression, and a
manifest (``skillfs-bundle.json``) with each skill's name, description, and the size and sha256
of every file. Hidden files are never bundled. Before anything is written, the archive is
opened with the same screening skillfs applies when loading bundles, so every bundle it writes
loads whole under the same :class:`~backends.limits.Limits`.

>>> bundle = await write_bundle("./skills", "s3://bucket/skills.zip")  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from backends import Backend, open_backend, write_bytes
from backends.errors import LimitExceededError
from backends.limits import DEFAULT_LIMITS, Limits
from backends.remote import bundle_refusals
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.report import SkillProblem
from skills_core.errors import InvalidSkillsError
from skills_core.format.models import SkillMetadata

MANIFEST_NAME = "skillfs-bundle.json"
MANIFEST_FORMAT = "skillfs-bundle/1"
_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
_MODE = 0o644 << 16
_UNIX = 3
_LEVEL = 9

Progress = Callable[[int, int], None]
"""Called with (skills packed, skills in all) after each skill's files are read."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """A built bundle.

    Attributes:
        data: The zip archive.
        skills: The bundled skills, sorted.
        files: How many skill files it holds (the manifest excluded).
        skipped: Skills left out because they are invalid (with ``skip_invalid``).
        location: Where it was written, once it was.
    """

    data: bytes
    skills: tuple[str, ...]
    files: int
    skipped: tuple[SkillProblem, ...] = ()
    location: str | None = None

    @property
    def sha256(self) -> str:
        """The archive's SHA-256, hex."""
        return hashlib.sha256(self.data).hexdigest()


async def build_bundle(
    backend: Backend,
    *,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    limits: Limits = DEFAULT_LIMITS,
    max_concurrency: int = 16,
) -> Bundle:
    """Validate every skill of ``backend`` strictly and pack the valid ones.

    Raises:
        InvalidSkillsError: Some skills are invalid and ``skip_invalid`` is false.
        LimitExceededError: A file, or the archive, breaks a bundle limit.
        StorageError: The source could not be listed or read.
    """
    catalog = SkillCatalog(backend, strict=True, limits=limits)
    report = await catalog.refresh()
    report.raise_for_failure()
    if report.errors and not skip_invalid:
        raise InvalidSkillsError(report.errors, location=backend.location)
    skills = catalog.list()
    members = await _read_skills(backend, skills, progress, limits, max_concurrency)
    manifest = _manifest(skills, members)
    data = await asyncio.to_thread(_archive, {**members, MANIFEST_NAME: manifest})
    await asyncio.to_thread(_check_loadable, data, limits, f"bundle of {backend.location}")
    names = tuple(meta.name for meta in skills)
    return Bundle(data, names, len(members), report.errors)


async def write_bundle(
    source: str | os.PathLike[str] | Backend,
    out: str | os.PathLike[str],
    *,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    limits: Limits = DEFAULT_LIMITS,
    out_options: Mapping[str, Any] | None = None,
    **source_options: Any,
) -> Bundle:
    """Bundle the skills of ``source`` (any path or URL) into ``out`` (any path or URL).

    Args:
        source: Where the skills are, or a backend already opened.
        out: The archive to create or replace: a local path or any fsspec URL.
        skip_invalid: Leave invalid skills out instead of refusing to bundle.
        progress: Called as skills are packed, e.g. to drive a progress bar.
        limits: Limits for validation and for the archive (it must load under them).
        out_options: Storage options for ``out`` (credentials, endpoint).
        **source_options: Storage options for ``source``.

    Raises:
        InvalidSkillsError: Some skills are invalid and ``skip_invalid`` is false.
        LimitExceededError: A file, or the archive, breaks a bundle limit.
        StorageError: The source could not be read or the archive not written.
    """
    backend = (
        open_backend(source, **source_options) if isinstance(source, str | os.PathLike) else source
    )
    bundle = await build_bundle(
        backend, skip_invalid=skip_invalid, progress=progress, limits=limits
    )
    location = await write_bytes(os.fspath(out), bundle.data, **(out_options or {}))
    return replace(bundle, location=location)


async def _read_skills(
    backend: Backend,
    skills: Sequence[SkillMetadata],
    progress: Progress | None,
    limits: Limits,
    max_concurrency: int,
) -> dict[str, bytes]:
    """Every visible file of every skill, by archive path, read concurrently."""
    semaphore = asyncio.Semaphore(max_concurrency)
    packed = 0

    async def read(name: str, path: str) -> bytes:
        async with semaphore:
            return await backend.read(name, path, max_bytes=limits.max_bundle_entry_bytes)

    async def pack(name: str) -> dict[str, bytes]:
        nonlocal packed
        entries = await backend.files(name)
        contents = await asyncio.gather(*(read(name, entry.path) for entry in entries))
        packed += 1
        if progress is not None:
            progress(packed, len(skills))
        return {f"{name}/{entry.path}": data for entry, data in zip(entries, contents, strict=True)}

    members: dict[str, bytes] = {}
    for files in await asyncio.gather(*(pack(meta.name) for meta in skills)):
        members.update(files)
    return members


def _manifest(skills: Sequence[SkillMetadata], members: Mapping[str, bytes]) -> bytes:
    listed = []
    for meta in skills:
        prefix = f"{meta.name}/"
        files = [
            {
                "path": path[len(prefix) :],
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
            for path, data in sorted(members.items())
            if path.startswith(prefix)
        ]
        listed.append({"name": meta.name, "description": meta.description, "files": files})
    manifest = {"format": MANIFEST_FORMAT, "skills": listed}
    return (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _archive(members: Mapping[str, bytes]) -> bytes:
    """A zip of ``members`` that depends on nothing but their paths and bytes (blocking)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(members):
            info = zipfile.ZipInfo(path, date_time=_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = _UNIX
            info.external_attr = _MODE
            archive.writestr(info, members[path], compresslevel=_LEVEL)
    return buffer.getvalue()


def _check_loadable(data: bytes, limits: Limits, location: str) -> None:
    """Refuse an archive skillfs itself would not load whole under ``limits`` (blocking)."""
    refused = bundle_refusals(data, limits=limits, location=location)
    if refused:
        raise LimitExceededError(
            f"the bundle would not load: {refused[0].message}", location=refused[0].location
        )
