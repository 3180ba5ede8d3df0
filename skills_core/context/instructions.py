"""A project's instruction files as skills: ``SkillCatalog(InstructionSkills("."))``.

:class:`InstructionSkills` is a backend like any other, so the catalog loads it incrementally:
a refresh walks the project once, compares fingerprints and re-reads only the files that
changed. It serves :class:`backends.instruction_files.InstructionFilesBackend`'s documents,
turning convention files without frontmatter into skills on the way
(:mod:`skills_core.format.instruction_files`).

:func:`instruction_documents` describes each loaded document as adk-rust's index does: a
SHA-256 of the file, its modification time, and an id made of the normalised name and the
first 12 hex digits of the hash.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from typing import NamedTuple

from backends.base import FileEntry, SkillDocument, SkillRef
from backends.instruction_files import InstructionFilesBackend
from backends.limits import DEFAULT_LIMITS
from backends.resource import AsyncResource
from skills_core.catalog.catalog import SkillCatalog
from skills_core.format.instruction_files import convention_skill_md

_NOT_ID = re.compile(r"[^a-z0-9 _-]")


class InstructionDocument(NamedTuple):
    """One loaded instruction file.

    Attributes:
        id: The normalised name and the first 12 hex digits of ``hash`` (``agents-1f2e…``).
        name: The skill's name.
        description: What it is for.
        tags: Its tags (``convention``, ``agents-md``, … for convention files).
        path: The file, relative to the project root.
        hash: SHA-256 of the file's bytes, as hex.
        modified: Its modification time, in seconds since the epoch.
    """

    id: str
    name: str
    description: str
    tags: tuple[str, ...]
    path: str
    hash: str
    modified: float


class InstructionSkills(AsyncResource):
    """Instruction files under a project root as skills; see the module docstring.

    Args:
        root: The project root.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._files = InstructionFilesBackend(root)
        self._hashes: dict[tuple[str, str], str] = {}  # (name, fingerprint) -> sha256

    def __repr__(self) -> str:
        return f"InstructionSkills({self._files.location!r})"

    @property
    def location(self) -> str:
        """The absolute path of the project root."""
        return self._files.location

    @property
    def files_backend(self) -> InstructionFilesBackend:
        """The storage backend underneath."""
        return self._files

    async def list(self) -> Sequence[SkillRef]:
        """Every document under the root, in one walk."""
        refs = await self._files.list()
        listed = {(ref.name, ref.fingerprint) for ref in refs}
        self._hashes = {key: value for key, value in self._hashes.items() if key in listed}
        return refs

    async def get(self, name: str) -> SkillDocument:
        """The document as a SKILL.md: convention files get a frontmatter when they lack one."""
        document = await self._files.get(name)
        self._hashes[name, document.fingerprint] = hashlib.sha256(document.data).hexdigest()
        item = self._files.describe(name)
        if item is None or not item.convention:
            return document
        file_name = item.path.rpartition("/")[2]
        data = convention_skill_md(document.data, name=name, file_name=file_name)
        return document._replace(data=data)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """The skill's files."""
        return await self._files.files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_resource_bytes
    ) -> bytes:
        """One file of the skill, as stored."""
        return await self._files.read(name, path, max_bytes=max_bytes)

    async def local_folder(self, name: str) -> str | None:
        """A skill folder's path on this machine; ``None`` for a single-file skill."""
        return await self._files.local_folder(name)

    async def aclose(self) -> None:
        """Nothing to release."""

    def file_hash(self, name: str, fingerprint: str) -> str | None:
        """SHA-256 of the file as last read under ``fingerprint``, or ``None``."""
        return self._hashes.get((name, fingerprint))


def instruction_documents(catalog: SkillCatalog) -> list[InstructionDocument]:
    """The loaded documents of a catalog over :class:`InstructionSkills`, sorted by name, path.

    Raises:
        TypeError: The catalog reads another kind of backend.
    """
    source = catalog.backend
    if not isinstance(source, InstructionSkills):
        raise TypeError(f"the catalog reads {source!r}, not InstructionSkills")
    documents = []
    for key, entry in catalog.snapshot.entries.items():
        item = source.files_backend.describe(key)
        digest = source.file_hash(key, entry.fingerprint)
        if entry.metadata is None or item is None or digest is None:
            continue
        meta = entry.metadata
        identity = f"{normalize_id(meta.name)}-{digest[:12]}"
        documents.append(
            InstructionDocument(
                identity, meta.name, meta.description, meta.tags, item.path, digest, item.modified
            )
        )
    return sorted(documents, key=lambda document: (document.name, document.path))


def normalize_id(name: str) -> str:
    """adk-rust's id stem: ASCII letters and digits lowercased, spaces and ``_`` as ``-``."""
    kept = _NOT_ID.sub("", name.lower()).replace(" ", "-").replace("_", "-")
    return kept or "skill"
