"""Instruction files under a project root, as adk-rust's ``adk-skill`` discovers them.

Under ``<root>/.skills/``: every ``*.md`` file and every folder holding a ``SKILL.md``;
elsewhere, the convention files (``AGENTS.md``, ``CLAUDE.md``, …; ``SOUL.md`` at the root
only). Ignored folders are never entered, symlinks never followed. Names are kebab-case
(:func:`storage_name`); a taken one gets 8 hex digits of its path's SHA-256 appended. Giving a
convention file a frontmatter is format work, handed in as ``prepare_convention``.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import stat
from collections.abc import Callable, Sequence
from typing import NamedTuple

from backends._base import AsyncResource, FileEntry, SkillDocument, SkillRef
from backends._errors import ResourceNotFoundError, SkillNotFoundError, StorageError
from backends._limits import DEFAULT_LIMITS
from backends._local import LocalBackend
from backends._local_files import fingerprint as file_fingerprint
from backends._local_files import read_limited
from backends._paths import check_resource_path, skill_md_name

SKILLS_FOLDER = ".skills"
CONVENTION_FILES = ("AGENTS.md", "AGENT.md", "CLAUDE.md", "GEMINI.md", "COPILOT.md", "SKILLS.md")
ROOT_ONLY_FILES = ("SOUL.md",)
IGNORED_FOLDERS = frozenset(  # compared case-insensitively
    {
        ".git",
        ".hg",
        ".svn",
        "target",
        "node_modules",
        ".next",
        "dist",
        "build",
        "coverage",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)

_CONVENTIONS = {name.lower() for name in CONVENTION_FILES}
_ROOT_ONLY = {name.lower() for name in ROOT_ONLY_FILES}
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_MD_SUFFIX = re.compile(r"\.md\Z", re.IGNORECASE)


class InstructionFile(NamedTuple):
    """One discovered document: ``path`` relative to the root, ``folder`` a skill folder's."""

    name: str
    path: str
    convention: bool
    folder: str | None
    size: int
    modified: float
    fingerprint: str


def is_convention_file(relative_path: str) -> bool:
    """True for ``AGENTS.md`` and the like outside ``.skills/`` (``SOUL.md`` at the root)."""
    folder, _, file_name = relative_path.rpartition("/")
    lowered = file_name.lower()
    if folder.split("/")[0] == SKILLS_FOLDER:
        return False
    return lowered in _CONVENTIONS or (lowered in _ROOT_ONLY and not folder)


class InstructionFilesBackend(AsyncResource):
    """The instruction files under ``root``.

    ``prepare_convention(data, *, name, file_name)`` turns a convention file's bytes into the
    SKILL.md it stands for, as :meth:`get` reads it.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        prepare_convention: Callable[..., bytes] | None = None,
    ) -> None:
        path = os.fspath(root)
        self._root = os.path.normpath(path) if os.path.isabs(path) else os.path.abspath(path)
        self._prepare = prepare_convention
        self._found: dict[str, InstructionFile] = {}
        self._hashes: dict[tuple[str, str], str] = {}  # (name, fingerprint) -> sha256

    def __repr__(self) -> str:
        return f"InstructionFilesBackend({self._root!r})"

    @property
    def location(self) -> str:
        """The absolute path of the project root."""
        return self._root

    def describe(self, name: str) -> InstructionFile | None:
        """What the last listing found under ``name``, or ``None``."""
        return self._found.get(name)

    async def list(self) -> Sequence[SkillRef]:
        """Walk the root once (one thread hop) and list every document, sorted by path."""
        found = await asyncio.to_thread(self._discover)
        self._found = {item.name: item for item in found}
        listed = {(item.name, item.fingerprint) for item in found}
        self._hashes = {key: value for key, value in self._hashes.items() if key in listed}
        return [
            SkillRef(item.name, item.fingerprint, self._absolute(item.path), size=item.size)
            for item in found
        ]

    async def get(self, name: str) -> SkillDocument:
        """The document as a SKILL.md: as stored, or prepared when it is a convention file."""
        item = await self._lookup(name)
        data = await asyncio.to_thread(
            self._read_file, item.path, DEFAULT_LIMITS.max_skill_md_bytes
        )
        self._hashes[name, item.fingerprint] = hashlib.sha256(data).hexdigest()
        if item.convention and self._prepare is not None:
            file_name = item.path.rpartition("/")[2]
            data = self._prepare(data, name=name, file_name=file_name)
        return SkillDocument(name, data, item.fingerprint, self._absolute(item.path))

    def file_hash(self, name: str, fingerprint: str) -> str | None:
        """SHA-256 of the file as last read under ``fingerprint`` (before any preparing)."""
        return self._hashes.get((name, fingerprint))

    async def files(self, name: str) -> Sequence[FileEntry]:
        """A skill folder's files; a single-file skill's one file."""
        item = await self._lookup(name)
        if item.folder is not None:
            parent, folder = self._split_folder(item.folder)
            return await LocalBackend(parent).files(folder)
        file_name = item.path.rpartition("/")[2]
        return [FileEntry(file_name, item.size, item.fingerprint)]

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read one file of a skill folder, or a single-file skill's own file."""
        item = await self._lookup(name)
        if item.folder is not None:
            parent, folder = self._split_folder(item.folder)
            return await LocalBackend(parent).read(folder, path, max_bytes=max_bytes)
        relative = check_resource_path(path, location=self._absolute(item.path))
        if relative != item.path.rpartition("/")[2]:
            raise ResourceNotFoundError("no such file", location=self._absolute(relative))
        return await asyncio.to_thread(self._read_file, item.path, max_bytes)

    async def local_folder(self, name: str) -> str | None:
        """A skill folder's path on this machine; ``None`` for a single-file skill."""
        item = await self._lookup(name)
        return None if item.folder is None else self._absolute(item.folder)

    async def aclose(self) -> None:
        """Nothing to release: every file is closed after each call."""

    async def _lookup(self, name: str) -> InstructionFile:
        if name not in self._found:
            await self.list()
        item = self._found.get(name)
        if item is None:
            raise SkillNotFoundError(f"no instruction file named {name!r}", location=self._root)
        return item

    def _absolute(self, relative: str) -> str:
        return os.path.join(self._root, *relative.split("/"))

    def _split_folder(self, relative: str) -> tuple[str, str]:
        parent, _, folder = relative.rpartition("/")
        return self._absolute(parent), folder

    def _discover(self) -> Sequence[InstructionFile]:
        if not os.path.isdir(self._root):
            raise StorageError("the project root is not a folder", location=self._root)
        found = []
        taken: set[str] = set()
        for path, folder in _walk_documents(self._root):
            try:
                st = os.lstat(self._absolute(path))
            except OSError:
                continue  # vanished while walking
            if not stat.S_ISREG(st.st_mode):
                continue  # symlinks are not followed
            name = storage_name(folder if folder is not None else path)
            if name in taken:
                name += "-" + hashlib.sha256(path.encode()).hexdigest()[:8]
            taken.add(name)
            fingerprint = file_fingerprint(st)
            convention = is_convention_file(path)
            found.append(
                InstructionFile(
                    name, path, convention, folder, st.st_size, st.st_mtime, fingerprint
                )
            )
        return found

    def _read_file(self, relative: str, max_bytes: int) -> bytes:
        location = self._absolute(relative)
        try:
            return read_limited(location, max_bytes, location=location)
        except FileNotFoundError as exc:
            raise SkillNotFoundError("the file is gone", location=location) from exc
        except OSError as exc:  # a FIFO or device swapped in is refused unread
            raise StorageError(f"cannot open: {exc.strerror}", location=location) from exc


def storage_name(relative_path: str) -> str:
    """A kebab-case name: ``pkg/CLAUDE.md`` is ``pkg-claude``, ``.skills/x/a.md`` is ``a``."""
    parts = _MD_SUFFIX.sub("", relative_path).split("/")
    if parts[0] == SKILLS_FOLDER:
        parts = parts[-1:]
    words = [_NOT_WORD.sub("-", part.lower()).strip("-") for part in parts]
    return "-".join(word for word in words if word) or "skill"


def _walk_documents(root: str) -> list[tuple[str, str | None]]:
    candidates: list[tuple[str, str | None]] = []
    for folder, subfolders, file_names in os.walk(root):
        relative = os.path.relpath(folder, root).replace(os.sep, "/")
        relative = "" if relative == "." else relative
        subfolders[:] = sorted(d for d in subfolders if d.lower() not in IGNORED_FOLDERS)
        candidates += _documents_in(relative, subfolders, file_names)
    return sorted(candidates)


def _documents_in(
    relative: str, subfolders: list[str], file_names: list[str]
) -> list[tuple[str, str | None]]:
    prefix = f"{relative}/" if relative else ""
    in_skills = relative.split("/", maxsplit=1)[0] == SKILLS_FOLDER
    if in_skills and relative != SKILLS_FOLDER:
        skill_md = skill_md_name(file_names)
        if skill_md is not None:
            subfolders[:] = []  # a skill folder's contents are its resources
            return [(prefix + skill_md, relative)]
    if in_skills:
        return [(prefix + name, None) for name in file_names if name.lower().endswith(".md")]
    return [(prefix + name, None) for name in file_names if is_convention_file(prefix + name)]
