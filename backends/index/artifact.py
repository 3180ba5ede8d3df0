"""One skill's artifact from an index, verified and screened: its SKILL.md, or an archive of it.

An archive holds the skill's folder with its files at the root (``SKILL.md``, ``scripts/…``),
as zip or tar.gz. It is screened exactly as zip bundles are (:mod:`backends.remote.archives`,
:mod:`backends.remote.archives`): any member that is unsafe, a link, or past a limit refuses
the skill, with every reason named. The format comes from the ``Content-Type`` when it says
one, else from the URL's extension, else from the archive's first bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from urllib.parse import urlsplit

from backends.base import FileEntry
from backends.errors import StorageError
from backends.limits import Limits, check_size
from backends.remote.archives import TarBundle, ZipBundle
from backends.remote.layout import SkillFolder, StoredFile

ZIP = "zip"
TAR_GZ = "tar.gz"

_CONTENT_TYPES = {
    "application/zip": ZIP,
    "application/x-zip-compressed": ZIP,
    "application/gzip": TAR_GZ,
    "application/x-gzip": TAR_GZ,
    "application/x-gtar": TAR_GZ,
    "application/x-tgz": TAR_GZ,
}
_EXTENSIONS = ((".zip", ZIP), (".tar.gz", TAR_GZ), (".tgz", TAR_GZ))
_MAGIC = ((b"PK\x03\x04", ZIP), (b"PK\x05\x06", ZIP), (b"\x1f\x8b", TAR_GZ))
_SHOWN_PROBLEMS = 3


class _Members(Protocol):
    def read(self, key: str, *, location: str) -> bytes:
        """One member's bytes (blocking)."""


class Artifact:
    """The files of one skill, screened, as its verified artifact holds them."""

    def __init__(self, folder: SkillFolder, members: _Members) -> None:
        self._folder = folder
        self._members = members

    @property
    def skill_md(self) -> StoredFile:
        """The skill's SKILL.md."""
        return self._folder.skill_md

    def entries(self) -> tuple[FileEntry, ...]:
        """Every visible file, sorted by path."""
        return self._folder.entries()

    def file(self, path: str) -> StoredFile | None:
        """The file at a normalised relative path, if there is one."""
        return self._folder.files.get(path)

    def read(self, stored: StoredFile) -> bytes:
        """One file's bytes (blocking: inflating a zip member takes CPU)."""
        return self._members.read(stored.key, location=stored.location)


class _Whole:
    """A SKILL.md artifact: its one member is the artifact itself."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self, key: str, *, location: str) -> bytes:
        return self._data


def skill_md_artifact(name: str, data: bytes, *, fingerprint: str, location: str) -> Artifact:
    """A skill whose artifact is its SKILL.md alone."""
    stored = StoredFile("SKILL.md", len(data), fingerprint, location)
    return Artifact(SkillFolder(name, stored, {"SKILL.md": stored}), _Whole(data))


def open_archive(
    name: str, data: bytes, *, content_type: str | None, limits: Limits, location: str
) -> Artifact:
    """Screen an archive of the skill ``name`` (blocking: run it in a worker thread).

    Raises:
        LimitExceededError, UnsafePathError, StorageError: The archive, or a member, is refused;
            the message names the member(s) and why.
    """
    check_size(len(data), limits.max_bundle_bytes, location=location, what="archive")
    kind = archive_format(content_type, location, data)
    bundle: ZipBundle | TarBundle
    if kind == ZIP:
        bundle = ZipBundle.load(data, limits=limits, inner_root="", location=location, mount=name)
    else:
        bundle = TarBundle.load(data, limits=limits, location=location, mount=name)
    layout = bundle.layout
    folder = layout.skills.get(name)
    problems = [ref.error for ref in layout.strays if ref.error is not None]
    if folder is not None and folder.refusal is not None:
        problems.insert(0, folder.refusal)
    if problems:
        raise _refusal(problems, mount=name)
    if folder is None:
        raise StorageError(
            f"the {kind} archive holds no SKILL.md at its root (files must not sit in a folder)",
            location=location,
        )
    return Artifact(folder, bundle)


def archive_format(content_type: str | None, url: str, data: bytes) -> str:
    """``zip`` or ``tar.gz``: from the Content-Type, else the URL's extension, else the bytes.

    Raises:
        StorageError: None of the three tells.
    """
    declared = (content_type or "").split(";", 1)[0].strip().lower()
    if declared in _CONTENT_TYPES:
        return _CONTENT_TYPES[declared]
    path = urlsplit(url).path.lower()
    for extension, kind in _EXTENSIONS:
        if path.endswith(extension):
            return kind
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    raise StorageError(
        "not a zip or tar.gz archive (by its Content-Type, URL or first bytes)", location=url
    )


def _refusal(problems: Sequence[StorageError], *, mount: str) -> StorageError:
    """One error of the first problem's type, naming the first few members as archived."""
    shown = "; ".join(problem.message for problem in problems[:_SHOWN_PROBLEMS])
    shown = shown.replace(f"'{mount}/", "'")  # the layout saw each member below the skill
    more = len(problems) - _SHOWN_PROBLEMS
    suffix = f" (and {more} more)" if more > 0 else ""
    first = problems[0]
    return type(first)(f"{shown}{suffix}", location=first.location)
