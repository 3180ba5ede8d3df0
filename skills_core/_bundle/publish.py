"""Publishing: a source's skills as a well-known index plus one artifact per skill.

The layout, and the order of writes and removals: docs/index-and-publishing.md.
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Unpack
from urllib.parse import quote

from backends import Backend
from backends._digests import digest_of
from backends._errors import StorageError
from backends._index.document import (
    ARCHIVE,
    INDEX_PATH,
    SIGNATURE_SUFFIX,
    SKILL_MD,
    IndexEntry,
    artifact_path,
    parse_index,
    render_index,
)
from backends._index.reader import open_archive
from backends._limits import DEFAULT_LIMITS, Limits, check_size
from backends._local_files import is_temporary
from backends._paths import SKILL_MD_NAMES
from backends._remote.output_folder import OutputFolder
from backends._remote.urls import join_location
from skills_core._bundle.writer import (
    PackOptions,
    SkillFiles,
    deterministic_zip,
    opened_for,
    read_skill_files,
)
from skills_core._catalog.loading import Progress
from skills_core._format.models import SkillProblem

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

FOLDER = INDEX_PATH.rsplit("/", 1)[0]
"""Where a publication's index and artifacts sit below its base."""
SIGNATURE_PATH = INDEX_PATH + SIGNATURE_SUFFIX
_ARTIFACT = re.compile(r"[^/]+-[0-9a-f]{64}\.(?:zip|md)")


@dataclass(frozen=True, slots=True)
class Publication:
    """A built publication: every file by its path below the base, the index last.

    ``location`` is the base it was written to and ``removed`` the files removed then.
    """

    files: Mapping[str, bytes]
    skills: tuple[str, ...]
    skipped: tuple[SkillProblem, ...] = ()
    warnings: tuple[SkillProblem, ...] = ()
    location: str | None = field(default=None)
    removed: tuple[str, ...] = ()

    @property
    def index(self) -> bytes:
        """The index's JSON."""
        return self.files[INDEX_PATH]


async def build_publication(
    backend: Backend,
    *,
    signing_key: Ed25519PrivateKey | None = None,
    **options: Unpack[PackOptions],
) -> Publication:
    """The index and artifacts for every skill a catalog of ``backend`` serves.

    ``options``: :class:`~skills_core._bundle.writer.PackOptions` (with a lock, publish only
    what it pins); each archive must load under ``limits`` and the index fit. A
    ``signing_key`` adds a sequence to the index and its signature file (needs ``skillfs[sign]``).

    Raises:
        InvalidSkillsError: The verdict refuses some skills and ``skip_invalid`` is false.
        LimitExceededError: A file, an archive or the index breaks a limit.
        StorageError: The source could not be listed or read.
    """
    read = await read_skill_files(backend, **options)
    files = await asyncio.to_thread(_artifacts, read, backend.location, signing_key)
    names = tuple(meta.name for meta in read.skills)
    return Publication(files, names, read.skipped, read.warnings)


async def publish(
    source: str | os.PathLike[str] | Backend,
    out: str | os.PathLike[str],
    *,
    strict: bool = False,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    limits: Limits = DEFAULT_LIMITS,
    out_options: Mapping[str, Any] | None = None,
    signing_key: Ed25519PrivateKey | None = None,
    **source_options: Any,
) -> Publication:
    """Publish the skills of ``source`` (a path, URL or backend) below ``out`` (a folder or URL).

    Options as for :func:`build_publication`; ``out_options`` and ``source_options`` are
    storage options. ``out`` must not be inside the source.

    Raises:
        UnsupportedSourceError, UnsafePathError: As
            :func:`~skills_core._bundle.writer.check_output`.
        InvalidSkillsError, LimitExceededError, StorageError: As :func:`build_publication`, or
            a file could not be written.
    """
    target = os.fspath(out)
    source = await opened_for(target, source, folder=True, **source_options)
    publication = await build_publication(
        source,
        strict=strict,
        skip_invalid=skip_invalid,
        progress=progress,
        limits=limits,
        signing_key=signing_key,
    )
    return await write_publication(publication, target, **(out_options or {}))


async def write_publication(publication: Publication, out: str, **out_options: Any) -> Publication:
    """Write a built publication below ``out``: artifacts, the index, then removals; return it.

    Raises:
        StorageError: ``out`` could not be listed, or a file not written or removed; a
            folder stands where the index goes (nothing is written then).
    """
    async with OutputFolder.open(out, **out_options) as folder:
        found = await folder.files(FOLDER)
        if any(path.startswith(f"{INDEX_PATH}/") for path in found):
            raise StorageError(
                "nothing written: a folder stands where the index goes (an earlier publish of a "
                "skill named 'index.json' left it); remove it",
                location=join_location(folder.location, INDEX_PATH),
            )
        replaced = await _replaced(folder, found.get(INDEX_PATH))
        artifacts = {path: data for path, data in publication.files.items() if path != INDEX_PATH}
        await folder.write(artifacts)
        await folder.write({INDEX_PATH: publication.index})
        removed = tuple(
            sorted(
                path
                for path in found
                if path not in publication.files and (path in replaced or _is_ours(path))
            )
        )
        await folder.delete(removed)
    return replace(publication, location=folder.location, removed=removed)


async def _replaced(folder: OutputFolder, size: int | None) -> set[str]:
    """The paths below :data:`FOLDER` that the index about to be replaced lists."""
    if size is None or size > DEFAULT_LIMITS.max_index_bytes:
        return set()
    try:
        data = await folder.read(INDEX_PATH, size=size)
        index = await asyncio.to_thread(parse_index, data, location=INDEX_PATH)
    except StorageError:
        return set()  # nothing a reader could use: nothing to keep or to remove by it
    listed = set()
    for entry in index.entries.values():
        try:
            listed.add(artifact_path(INDEX_PATH, entry.url, location=INDEX_PATH))
        except StorageError:
            continue  # another host's file
    return {path for path in listed if path.startswith(f"{FOLDER}/")}


def _is_ours(path: str) -> bool:
    """True for an artifact or signature skillfs publishes, or a killed write's temporary."""
    if path == SIGNATURE_PATH or _ARTIFACT.fullmatch(path[len(FOLDER) + 1 :]):
        return True
    return is_temporary(posixpath.basename(path))


def _artifacts(
    read: SkillFiles, source: str, signing_key: Ed25519PrivateKey | None
) -> dict[str, bytes]:
    """Every artifact, the signature and the index, by path below the base (blocking)."""
    executables, limits = read.executables, read.limits
    files: dict[str, bytes] = {}
    entries = []
    for meta in read.skills:
        skill_files = dict(read.files[meta.name])
        if SKILL_MD_NAMES[0] not in skill_files:  # a lowercase skill.md is published as SKILL.md
            skill_files[SKILL_MD_NAMES[0]] = skill_files.pop(SKILL_MD_NAMES[1])
        skill_md = skill_files["SKILL.md"]
        if len(skill_files) == 1:
            kind, extension, artifact = SKILL_MD, "md", skill_md
        else:
            modes = {path for path in skill_files if f"{meta.name}/{path}" in executables}
            kind, extension = ARCHIVE, "zip"
            artifact = deterministic_zip(skill_files, modes)
        digest = digest_of(artifact)
        file = f"{meta.name}-{digest.removeprefix('sha256:')}.{extension}"
        if kind == ARCHIVE:
            where = f"{FOLDER}/{file} (published from {source})"
            open_archive(meta.name, artifact, content_type=None, limits=limits, location=where)
        files[f"{FOLDER}/{file}"] = artifact
        url = quote(file, safe="")
        entries.append(IndexEntry(meta.name, meta.description, kind, url, digest, None, skill_md))
    if signing_key is None:
        index = render_index(entries)
    else:
        from skills_core._trust.signing import new_sequence, signature_file

        index = render_index(entries, sequence=new_sequence())
        files[SIGNATURE_PATH] = signature_file(index, signing_key)
    check_size(len(index), limits.max_index_bytes, location=INDEX_PATH, what="skills index")
    files[INDEX_PATH] = index
    return files
