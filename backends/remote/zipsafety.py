"""Zip bundles, screened from their metadata before anything is decompressed.

Whole-bundle refusals (the archive is refused, a catalog keeps its last good snapshot): an
archive over ``Limits.max_bundle_bytes``, more members than ``max_bundle_entries`` or a central
directory over ``bundle_download_bytes`` (both read from the end record, before anything else
is downloaded), a declared uncompressed total over ``max_bundle_unpacked_bytes``, or a manifest
that cannot be read. Per-member refusals (the skill holding the member is refused, the rest of
the bundle loads): symlinks, encrypted members, a declared size or compression ratio past the
limits, a member its bundle's manifest does not list as it is (see
:mod:`backends.remote.bundle_manifest`), and every unsafe path (see :mod:`backends.remote.layout`).
Declared sizes are trustworthy bounds: :mod:`zipfile` never inflates a member past its declared
size, and checks its CRC.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from collections.abc import Sequence
from typing import IO, cast

from backends.errors import LimitExceededError, StorageError, UnsafePathError
from backends.limits import Limits, check_size
from backends.paths import SKILL_MD_NAMES, check_relative_path
from backends.remote.bundle_manifest import MANIFEST_NAME, BundleManifest
from backends.remote.foreign_errors import IncompleteReadError
from backends.remote.layout import (
    IGNORED_FOLDERS,
    Candidate,
    Layout,
    StoredFile,
    build_layout,
    mounted,
    passes,
)
from backends.remote.ranged import Span
from backends.remote.zip_end import TAIL_BYTES, EndRecord, read_end_record

_UNIX = 3
_ENCRYPTED = 0x1
_DATA_DESCRIPTOR = 0x8
_LOCAL_HEADER_BYTES = 30
_DESCRIPTOR_BYTES = 24
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError)


class ZipBundle:
    """A screened archive and the layout of its skills.

    Build it with :meth:`load` (an archive in memory), or :meth:`open` then :meth:`index` (any
    seekable file, such as a :class:`~backends.remote.ranged.RangedArchive`). Every method
    blocks: run them in worker threads.
    """

    def __init__(
        self,
        archive: zipfile.ZipFile,
        *,
        root: str,
        limits: Limits,
        location: str,
        mount: str = "",
    ) -> None:
        self._archive = archive
        self._members = {info.filename: info for info in archive.infolist()}
        self._prefix = f"{root}/" if root else ""
        self._limits = limits
        self._location = location
        self._mount = mount
        self._manifest: BundleManifest | None = None
        self.layout = Layout({})

    @classmethod
    def load(
        cls, data: bytes, *, limits: Limits, inner_root: str | None, location: str, mount: str = ""
    ) -> ZipBundle:
        """Screen and index an archive held in memory.

        Args:
            data: The whole archive.
            limits: The bundle limits to enforce.
            inner_root: The skills folder inside the archive; ``None`` to use the root, or
                the single top folder when everything sits in one.
            location: The archive's URL, for messages.
            mount: A folder to place every member in: the archive of one skill holds that
                skill's files at its root, and ``mount`` is the skill's name.

        Raises:
            LimitExceededError: The archive breaks a whole-bundle limit.
            StorageError: The data is not a zip archive, or its manifest is unreadable.
        """
        check_size(len(data), limits.max_bundle_bytes, location=location, what="bundle")
        tail_start = max(0, len(data) - TAIL_BYTES)
        check_end_record(
            read_end_record(data[tail_start:], tail_start, location=location), limits, location
        )
        bundle = cls.open(
            io.BytesIO(data), limits=limits, inner_root=inner_root, location=location, mount=mount
        )
        bundle.index()
        return bundle

    @classmethod
    def open(
        cls,
        file: IO[bytes] | io.RawIOBase,
        *,
        limits: Limits,
        inner_root: str | None,
        location: str,
        mount: str = "",
    ) -> ZipBundle:
        """Read the central directory of ``file`` and apply the whole-bundle limits.

        Arguments are those of :meth:`load`, ``file`` any seekable file holding the archive.

        Raises:
            LimitExceededError: The archive breaks a whole-bundle limit.
            StorageError: It is not a zip archive.
        """
        try:
            archive = zipfile.ZipFile(cast(IO[bytes], file))
        except (zipfile.BadZipFile, ValueError, EOFError) as exc:
            raise StorageError(f"not a valid zip archive: {exc}", location=location) from exc
        members = archive.infolist()
        _check_count(len(members), limits, location)
        unpacked = sum(info.file_size for info in members)
        if unpacked > limits.max_bundle_unpacked_bytes:
            raise LimitExceededError(
                f"members declare {unpacked} bytes unpacked, over the "
                f"{limits.max_bundle_unpacked_bytes}-byte limit",
                location=location,
            )
        root = inner_root.strip("/") if inner_root is not None else wrapping_folder(members)
        return cls(archive, root=root, limits=limits, location=location, mount=mount)

    def manifest_spans(self) -> list[Span]:
        """The bytes :meth:`index` reads: the manifest member's, when there is one."""
        key = self._manifest_key()
        return [] if key is None else [self.span(key)]

    def index(self) -> None:
        """Read the manifest, if any, and sort the members into skill folders.

        Raises:
            LimitExceededError: The manifest is larger than ``bundle_download_bytes``.
            StorageError: The manifest cannot be read.
        """
        key = self._manifest_key()
        if key is not None:
            location = f"{self._location}!/{key}"
            limit = self._limits.bundle_download_bytes
            size = self._members[key].file_size
            check_size(size, limit, location=location, what="bundle manifest")
            self._manifest = BundleManifest.parse(self._inflate(key, location), location=location)
        members = self._archive.infolist()  # duplicates included: they refuse their skill
        candidates = _candidates(
            members,
            self._prefix,
            self._limits,
            self._location,
            manifest=self._manifest,
            mount=self._mount,
        )
        self.layout = build_layout(candidates)

    def span(self, key: str) -> Span:
        """The bytes reading member ``key`` needs: its local header, name, extra and data."""
        info = self._members[key]
        header = _LOCAL_HEADER_BYTES + len(info.orig_filename.encode()) + len(info.extra)
        descriptor = _DESCRIPTOR_BYTES if info.flag_bits & _DATA_DESCRIPTOR else 0
        return info.header_offset, info.header_offset + header + info.compress_size + descriptor

    def read(self, key: str, *, location: str) -> bytes:
        """Inflate one member and check it against the manifest, if there is one.

        Raises:
            VerificationError: Its bytes are not what the manifest lists.
            StorageError: The member is corrupt or uses an unsupported compression.
        """
        data = self._inflate(key, location)
        if self._manifest is None:
            return data
        return self._manifest.verify(key[len(self._prefix) :], data, location=location)

    def read_many(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        """Inflate several members; a corrupt one never hides the others."""
        results: list[bytes | StorageError] = []
        for stored in files:
            try:
                results.append(self.read(stored.key, location=stored.location))
            except StorageError as exc:
                results.append(exc)
        return results

    def _manifest_key(self) -> str | None:
        """The manifest's member, in a bundle (an archive of one mounted skill has none)."""
        key = self._prefix + MANIFEST_NAME
        return key if key in self._members and not self._mount else None

    def _inflate(self, key: str, location: str) -> bytes:
        member = self._members[key]
        try:
            with self._archive.open(member) as handle:
                data = handle.read()
        except _READ_ERRORS as exc:
            message = f"cannot read member: {type(exc).__name__}: {exc}"
            raise StorageError(message, location=location) from exc
        return IncompleteReadError.check(data, member.file_size, location=location)


def bundle_refusals(data: bytes, *, limits: Limits, location: str) -> list[StorageError]:
    """Why skills of the zip ``data`` would be refused when loaded under ``limits``.

    Raises:
        LimitExceededError: The archive as a whole breaks a limit.
        StorageError: The data is not a readable zip.
    """
    layout = ZipBundle.load(data, limits=limits, inner_root=None, location=location).layout
    return [ref.error for ref in layout.refs() if ref.error is not None]


def check_end_record(record: EndRecord, limits: Limits, location: str) -> None:
    """Refuse an archive from its end record: too many members, or too large a directory.

    Raises:
        LimitExceededError: It breaks one of those limits.
    """
    _check_count(record.entries, limits, location)
    limit = limits.bundle_download_bytes
    check_size(record.directory_size, limit, location=location, what="central directory")


def screen(info: zipfile.ZipInfo, limits: Limits, *, location: str) -> StorageError | None:
    """Why one member is refused from its metadata alone, or ``None``."""
    if info.flag_bits & _ENCRYPTED:
        return StorageError("encrypted members are refused", location=location)
    if stat.S_ISLNK(info.external_attr >> 16):
        return UnsafePathError("symlink members are refused", location=location)
    too_large = oversize_member(info.file_size, limits, location=location)
    if too_large is not None:
        return too_large
    ratio = info.file_size / max(1, info.compress_size)
    if info.file_size > limits.compression_ratio_floor and ratio > limits.max_compression_ratio:
        return LimitExceededError(
            f"declares a compression ratio of {ratio:.0f}:1, over the "
            f"{limits.max_compression_ratio}:1 limit",
            location=location,
        )
    return None


def unix_mode(info: zipfile.ZipInfo) -> int | None:
    """A member's permission bits, when a Unix archiver recorded them; else ``None``."""
    mode = stat.S_IMODE(info.external_attr >> 16)
    return mode if info.create_system == _UNIX and mode else None


def oversize_member(size: int, limits: Limits, *, location: str) -> LimitExceededError | None:
    """The refusal of a member declaring more than ``max_bundle_entry_bytes``, or ``None``."""
    if size <= limits.max_bundle_entry_bytes:
        return None
    return LimitExceededError(
        f"declares {size} bytes unpacked, over the {limits.max_bundle_entry_bytes}-byte limit",
        location=location,
    )


def wrapping_folder(members: Sequence[zipfile.ZipInfo]) -> str:
    """The single top folder holding every skill folder, or ``""`` when skills sit at the root.

    A top folder that holds a SKILL.md itself is a skill, not a wrapper.
    """
    tops: set[str] = set()
    for info in members:
        if not passes(check_relative_path, info.filename):
            continue
        first, separator, rest = info.filename.partition("/")
        if first in IGNORED_FOLDERS or first.startswith("."):
            continue
        if not separator or rest in SKILL_MD_NAMES:
            return ""
        tops.add(first)
    return tops.pop() if len(tops) == 1 else ""


def _candidates(
    members: Sequence[zipfile.ZipInfo],
    prefix: str,
    limits: Limits,
    location: str,
    *,
    manifest: BundleManifest | None,
    mount: str,
) -> list[Candidate]:
    candidates = []
    for info in members:
        name = info.filename
        inside = name.startswith(prefix)
        if (info.is_dir() or not inside) and passes(check_relative_path, name):
            continue
        member_location = f"{location}!/{name}"
        fingerprint = f"crc:{info.CRC:08x}:{info.file_size}"
        stored = StoredFile(
            name, info.file_size, fingerprint, member_location, mode=unix_mode(info)
        )
        path = mounted(name[len(prefix) :], mount) if inside else name
        refusal = screen(info, limits, location=member_location)
        if refusal is None and manifest is not None and inside and "/" in path:
            refusal = manifest.refusal(path, info.file_size, location=member_location)
        candidates.append(Candidate(path, stored, refusal, stray=not inside))
    return candidates


def _check_count(count: int, limits: Limits, location: str) -> None:
    if count > limits.max_bundle_entries:
        raise LimitExceededError(
            f"bundle declares {count} members, over the {limits.max_bundle_entries}-member limit",
            location=location,
        )
