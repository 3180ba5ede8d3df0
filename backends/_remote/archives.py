"""Archives screened before anything is inflated: zip bundles and skill archives, zip or tar.gz.

Whole-archive limits refuse the archive; per-member refusals (links, devices, encryption,
declared sizes and ratios, unsafe paths, disagreement with the manifest) refuse the skill
holding the member (docs/limits-and-errors.md). A bundle's manifest (``skillfs-bundle.json``)
lists each file's size and SHA-256, checked at listing and on every read; a bundle without
one loads unchecked. A tar.gz is inflated once, within its bound, and served as slices.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any, NamedTuple, cast

from backends._errors import LimitExceededError, StorageError, UnsafePathError, VerificationError
from backends._limits import Limits, check_size
from backends._paths import SKILL_MD_NAMES, check_relative_path, passes
from backends._remote.failures import IncompleteReadError
from backends._remote.layout import (
    IGNORED_FOLDERS,
    Candidate,
    Layout,
    StoredFile,
    build_layout,
    mounted,
)

Span = tuple[int, int]  # [start, end) byte offsets


_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_ZIP64_EOCD_SIGNATURE = b"PK\x06\x06"
_MAX_COMMENT = 0xFFFF
_SATURATED = (0xFFFF, 0xFFFFFFFF)

TAIL_BYTES = _ZIP64_EOCD.size + _ZIP64_LOCATOR.size + _EOCD.size + _MAX_COMMENT  # end records


class EndRecord(NamedTuple):
    """What an archive's end record declares; the directory ends where the record starts."""

    entries: int
    directory_start: int
    directory_end: int


def read_end_record(tail: bytes, tail_start: int, *, location: str) -> EndRecord:
    """The end record in ``tail`` (the archive from ``tail_start``); StorageError: not a zip."""
    floor = max(0, len(tail) - _EOCD.size - _MAX_COMMENT)
    start = tail.rfind(_EOCD_SIGNATURE, floor)
    if start < 0 or start + _EOCD.size > len(tail):
        raise StorageError("not a zip archive (no end of central directory)", location=location)
    _, _, _, _, entries, size, _, _ = _EOCD.unpack_from(tail, start)
    end = tail_start + start
    record = EndRecord(entries, max(0, end - size), end)
    locator_at = start - _ZIP64_LOCATOR.size
    if not {entries, size} & set(_SATURATED) or locator_at < 0:
        return record
    signature, _, zip64_at, _ = _ZIP64_LOCATOR.unpack_from(tail, locator_at)
    relative = zip64_at - tail_start
    if signature != _ZIP64_LOCATOR_SIGNATURE or not 0 <= relative <= len(tail) - _ZIP64_EOCD.size:
        return record
    fields = _ZIP64_EOCD.unpack_from(tail, relative)
    if fields[0] != _ZIP64_EOCD_SIGNATURE:
        return record
    return EndRecord(int(fields[7]), max(0, zip64_at - int(fields[8])), zip64_at)


MANIFEST_NAME = "skillfs-bundle.json"
MANIFEST_FORMAT = "skillfs-bundle/1"
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


class ListedFile(NamedTuple):
    """What the manifest says one file holds."""

    size: int
    sha256: bytes


class BundleManifest:
    """The files a manifest lists, by path relative to the skills root (``pdf/SKILL.md``)."""

    def __init__(self, files: Mapping[str, ListedFile]) -> None:
        self._files = files

    @classmethod
    def parse(cls, data: bytes, *, location: str) -> BundleManifest:
        """Read a manifest; StorageError when it is not a ``skillfs-bundle/1`` one."""
        try:
            document = json.loads(data)
            if document.get("format") != MANIFEST_FORMAT:
                raise ValueError(f"format is not {MANIFEST_FORMAT!r}")
            files = dict(_listed_files(document["skills"]))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            raise StorageError(f"unreadable bundle manifest ({reason})", location=location) from exc
        return cls(files)

    def refusal(self, path: str, size: int, *, location: str) -> VerificationError | None:
        """Why the member at ``path``, declaring ``size`` bytes, disagrees with the manifest."""
        listed = self._files.get(path)
        if listed is None:
            return VerificationError("not listed in the bundle's manifest", location=location)
        if listed.size != size:
            message = f"declares {size} bytes, the bundle's manifest lists {listed.size}"
            return VerificationError(message, location=location)
        return None

    def verify(self, path: str, data: bytes, *, location: str) -> bytes:
        """Return ``data`` when it is what the manifest lists; else VerificationError."""
        refused = self.refusal(path, len(data), location=location)
        if refused is not None:
            raise refused
        if hashlib.sha256(data).digest() != self._files[path].sha256:
            raise VerificationError(
                "SHA-256 differs from the bundle's manifest (corrupted or altered)",
                location=location,
            )
        return data


def _listed_files(skills: Any) -> Iterator[tuple[str, ListedFile]]:
    for skill in skills:
        name = skill["name"]
        for item in skill["files"]:
            path, size, digest = item["path"], item["size"], item["sha256"]
            if not all(isinstance(value, str) for value in (name, path, digest)):
                raise TypeError(f"a file of skill {name!r} has a non-string field")
            if not isinstance(size, int) or size < 0 or not _SHA256.match(digest):
                raise ValueError(f"bad size or sha256 for {name}/{path}")
            yield f"{name}/{path}", ListedFile(size, bytes.fromhex(digest))


_UNIX = 3
_ENCRYPTED = 0x1
_DATA_DESCRIPTOR = 0x8
_LOCAL_HEADER_BYTES = 30
_DESCRIPTOR_BYTES = 24
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError)


class ZipBundle:
    """A screened archive and its skills' layout: :meth:`load`, or :meth:`open` + :meth:`index`."""

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
        """Screen and index an archive in memory; ``mount``: a folder to place every member in."""
        check_size(len(data), limits.max_bundle_bytes, location=location, what="bundle")
        tail_start = max(0, len(data) - TAIL_BYTES)
        screened_end_record(data[tail_start:], tail_start, limits, location)
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
        """Read the central directory of ``file``, applying the whole-bundle limits (as load)."""
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
        root = inner_root.strip("/") if inner_root is not None else _wrapping_folder(members)
        return cls(archive, root=root, limits=limits, location=location, mount=mount)

    def manifest_spans(self) -> list[Span]:
        """The bytes :meth:`index` reads: the manifest member's, when there is one."""
        key = self._manifest_key()
        return [] if key is None else [self.span(key)]

    def index(self) -> None:
        """Read the manifest, if any, and sort the members into skill folders."""
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
        """Inflate one member, checked against the manifest when there is one."""
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
    """Why skills of the zip ``data`` would be refused under ``limits`` (raises for the whole)."""
    layout = ZipBundle.load(data, limits=limits, inner_root=None, location=location).layout
    return [ref.error for ref in layout.refs() if ref.error is not None]


def screened_end_record(tail: bytes, tail_start: int, limits: Limits, location: str) -> EndRecord:
    """:func:`read_end_record`, refused for too many members or too large a directory."""
    record = read_end_record(tail, tail_start, location=location)
    _check_count(record.entries, limits, location)
    size = record.directory_end - record.directory_start
    check_size(size, limits.bundle_download_bytes, location=location, what="central directory")
    return record


def _zip_refusal(info: zipfile.ZipInfo, limits: Limits, *, location: str) -> StorageError | None:
    if info.flag_bits & _ENCRYPTED:
        return StorageError("encrypted members are refused", location=location)
    if stat.S_ISLNK(info.external_attr >> 16):
        return UnsafePathError("symlink members are refused", location=location)
    too_large = _oversize(info.file_size, limits, location=location)
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


def _oversize(size: int, limits: Limits, *, location: str) -> LimitExceededError | None:
    if size <= limits.max_bundle_entry_bytes:
        return None
    return LimitExceededError(
        f"declares {size} bytes unpacked, over the {limits.max_bundle_entry_bytes}-byte limit",
        location=location,
    )


def _wrapping_folder(members: Sequence[zipfile.ZipInfo]) -> str:
    """The single top folder holding every skill folder (not itself a skill), else ``""``."""
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
        mode = stat.S_IMODE(info.external_attr >> 16) if info.create_system == _UNIX else 0
        stored = StoredFile(name, info.file_size, fingerprint, member_location, mode=mode or None)
        path = mounted(name[len(prefix) :], mount) if inside else name
        refusal = _zip_refusal(info, limits, location=member_location)
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


_INFLATE_ERRORS = (OSError, EOFError, zlib.error)


class TarBundle:
    """A screened, inflated tar archive and the layout of its members; built by :meth:`load`."""

    def __init__(self, tar: bytes, spans: Mapping[str, tuple[int, int]], layout: Layout) -> None:
        self._tar = tar
        self._spans = spans
        self.layout = layout

    @classmethod
    def load(cls, data: bytes, *, limits: Limits, location: str, mount: str = "") -> TarBundle:
        """Inflate, screen and index a tar.gz archive (blocking; arguments as for ZipBundle)."""
        check_size(len(data), limits.max_bundle_bytes, location=location, what="archive")
        tar = _inflate(data, limits, location)
        spans: dict[str, tuple[int, int]] = {}
        candidates = []
        for member in _members(tar, limits, location):
            name = member.name
            if member.isdir() and passes(check_relative_path, name):
                continue
            member_location = f"{location}!/{name}"
            span = tar[member.offset_data : member.offset_data + member.size]
            fingerprint = f"crc:{zlib.crc32(span):08x}:{member.size}"
            mode = stat.S_IMODE(member.mode)
            stored = StoredFile(name, member.size, fingerprint, member_location, mode=mode)
            refusal = _tar_refusal(member, limits, available=len(tar), location=member_location)
            spans.setdefault(name, (member.offset_data, member.size))
            candidates.append(Candidate(mounted(name, mount), stored, refusal))
        return cls(tar, spans, build_layout(candidates))

    def read(self, key: str, *, location: str) -> bytes:
        """One member's bytes (the archive is already inflated)."""
        start, size = self._spans[key]
        return self._tar[start : start + size]


def _tar_refusal(
    member: tarfile.TarInfo, limits: Limits, *, available: int, location: str
) -> StorageError | None:
    """Why one member is refused from its header (ending past ``available`` too), or ``None``."""
    if member.issym():
        return UnsafePathError("symlink members are refused", location=location)
    if member.islnk():
        return UnsafePathError("hard link members are refused", location=location)
    if member.issparse() or not member.isreg():
        return StorageError("only regular files and folders are accepted", location=location)
    too_large = _oversize(member.size, limits, location=location)
    if too_large is not None:
        return too_large
    if member.offset_data + member.size > available:
        return StorageError(
            f"declares {member.size} bytes, but the archive ends first", location=location
        )
    return None


def _inflate(data: bytes, limits: Limits, location: str) -> bytes:
    unpacked = limits.max_bundle_unpacked_bytes
    by_ratio = max(limits.compression_ratio_floor, limits.max_compression_ratio * len(data))
    bound = min(unpacked, by_ratio)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            tar = stream.read(bound + 1)
    except _INFLATE_ERRORS as exc:
        raise StorageError(f"not a valid tar.gz archive: {exc}", location=location) from exc
    if len(tar) <= bound:
        return tar
    if bound < unpacked:
        reason = f"a compression ratio over the {limits.max_compression_ratio}:1 limit"
    else:
        reason = f"over the {unpacked}-byte limit"
    raise LimitExceededError(f"inflates past {bound} bytes: {reason}", location=location)


def _members(tar: bytes, limits: Limits, location: str) -> list[tarfile.TarInfo]:
    members: list[tarfile.TarInfo] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(tar), mode="r:") as archive:
            while (member := archive.next()) is not None:
                members.append(member)
                if len(members) > limits.max_bundle_entries:
                    raise LimitExceededError(
                        f"archive holds more than {limits.max_bundle_entries} members, "
                        "over the limit",
                        location=location,
                    )
    except tarfile.TarError as exc:
        raise StorageError(f"not a valid tar archive: {exc}", location=location) from exc
    return members
