"""Zip bundles held in memory, screened from their metadata before anything is decompressed.

Whole-bundle refusals (the archive is refused, a catalog keeps its last good snapshot): an
archive over ``Limits.max_bundle_bytes``, more members than ``max_bundle_entries`` (read from
the end-of-central-directory record before the directory is parsed), or a declared uncompressed
total over ``max_bundle_unpacked_bytes``. Per-member refusals (the skill holding the member is
refused, the rest of the bundle loads): symlinks, encrypted members, a declared size or
compression ratio past the limits, and every unsafe path (see :mod:`backends.remote.layout`).
Declared sizes are trustworthy bounds: :mod:`zipfile` never inflates a member past its declared
size, and checks its CRC.
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib
from collections.abc import Sequence

from backends.errors import LimitExceededError, StorageError, UnsafePathError
from backends.limits import Limits, check_size
from backends.paths import SKILL_MD_NAMES, check_relative_path
from backends.remote.errors import IncompleteReadError
from backends.remote.layout import (
    IGNORED_FOLDERS,
    Candidate,
    Layout,
    StoredFile,
    build_layout,
    mounted,
    passes,
)

_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_ZIP64_EOCD_SIGNATURE = b"PK\x06\x06"
_MAX_COMMENT = 0xFFFF
_UNIX = 3
_ENCRYPTED = 0x1
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError)


class ZipBundle:
    """A screened archive and the layout of its skills; build it with :meth:`load`."""

    def __init__(self, archive: zipfile.ZipFile, layout: Layout) -> None:
        self._archive = archive
        self._members = {info.filename: info for info in archive.infolist()}
        self.layout = layout

    @classmethod
    def load(
        cls, data: bytes, *, limits: Limits, inner_root: str | None, location: str, mount: str = ""
    ) -> ZipBundle:
        """Screen and index an archive (blocking: run it in a worker thread).

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
            StorageError: The data is not a zip archive.
        """
        check_size(len(data), limits.max_bundle_bytes, location=location, what="bundle")
        _check_count(declared_entries(data, location=location), limits, location)
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
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
        root = inner_root if inner_root is not None else wrapping_folder(members)
        candidates = _candidates(members, root, limits, location, mount)
        return cls(archive, build_layout(candidates))

    def read(self, key: str, *, location: str) -> bytes:
        """Inflate one member (blocking).

        Raises:
            StorageError: The member is corrupt or uses an unsupported compression.
        """
        member = self._members[key]
        try:
            with self._archive.open(member) as handle:
                data = handle.read()
        except _READ_ERRORS as exc:
            message = f"cannot read member: {type(exc).__name__}: {exc}"
            raise StorageError(message, location=location) from exc
        return IncompleteReadError.check(data, member.file_size, location=location)

    def read_many(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        """Inflate several members (blocking); a corrupt one never hides the others."""
        results: list[bytes | StorageError] = []
        for stored in files:
            try:
                results.append(self.read(stored.key, location=stored.location))
            except StorageError as exc:
                results.append(exc)
        return results


def bundle_refusals(data: bytes, *, limits: Limits, location: str) -> list[StorageError]:
    """Why skills of the zip ``data`` would be refused when loaded under ``limits``.

    Raises:
        LimitExceededError: The archive as a whole breaks a limit.
        StorageError: The data is not a readable zip.
    """
    layout = ZipBundle.load(data, limits=limits, inner_root=None, location=location).layout
    return [ref.error for ref in layout.refs() if ref.error is not None]


def declared_entries(data: bytes, *, location: str) -> int:
    """The member count the end-of-central-directory record declares (zip64 included).

    Raises:
        StorageError: No end-of-central-directory record: not a zip archive.
    """
    floor = max(0, len(data) - _EOCD.size - _MAX_COMMENT)
    start = data.rfind(_EOCD_SIGNATURE, floor)
    if start < 0 or start + _EOCD.size > len(data):
        raise StorageError("not a zip archive (no end of central directory)", location=location)
    entries: int = _EOCD.unpack_from(data, start)[4]
    locator_at = start - _ZIP64_LOCATOR.size
    if entries != 0xFFFF or locator_at < 0:
        return entries
    signature, _, offset, _ = _ZIP64_LOCATOR.unpack_from(data, locator_at)
    if signature != _ZIP64_LOCATOR_SIGNATURE or offset + _ZIP64_EOCD.size > len(data):
        return entries
    record = _ZIP64_EOCD.unpack_from(data, offset)
    return int(record[7]) if record[0] == _ZIP64_EOCD_SIGNATURE else entries


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
    members: Sequence[zipfile.ZipInfo], root: str, limits: Limits, location: str, mount: str
) -> list[Candidate]:
    prefix = f"{root.strip('/')}/" if root.strip("/") else ""
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
        candidates.append(Candidate(path, stored, refusal, stray=not inside))
    return candidates


def _check_count(count: int, limits: Limits, location: str) -> None:
    if count > limits.max_bundle_entries:
        raise LimitExceededError(
            f"bundle declares {count} members, over the {limits.max_bundle_entries}-member limit",
            location=location,
        )
