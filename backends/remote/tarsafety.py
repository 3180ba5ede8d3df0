"""Tar.gz archives held in memory, screened before any member is served: zip screening's twin.

A gzip stream declares no size worth trusting, so the archive is inflated once (in a worker
thread) and never past a bound: ``Limits.max_bundle_unpacked_bytes``, and for archives
inflating past ``compression_ratio_floor``, ``max_compression_ratio`` times the compressed size
(a tar.gz is one compressed stream: its ratio is the whole archive's). A bomb is refused at the
first byte past the bound, with the rest of the stream never inflated.

Whole-archive refusals, as for zip bundles: an archive over ``max_bundle_bytes``, past the
inflation bound, with more members than ``max_bundle_entries``, or that is not a tar.gz.
Per-member refusals (the skill holding the member is refused): symlinks and hard links, devices,
pipes and sparse files, a member over ``max_bundle_entry_bytes`` or cut short, and every unsafe
path (see :mod:`backends.remote.layout`). Members are served as slices of the inflated archive,
so reads from several threads never share a file position.
"""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
import zlib
from collections.abc import Mapping

from backends.errors import LimitExceededError, StorageError, UnsafePathError
from backends.limits import Limits, check_size
from backends.paths import check_relative_path
from backends.remote.layout import Candidate, Layout, StoredFile, build_layout, mounted, passes
from backends.remote.zipsafety import oversize_member

_INFLATE_ERRORS = (OSError, EOFError, zlib.error)


class TarBundle:
    """A screened, inflated tar archive and the layout of its members; built by :meth:`load`."""

    def __init__(self, tar: bytes, spans: Mapping[str, tuple[int, int]], layout: Layout) -> None:
        self._tar = tar
        self._spans = spans
        self.layout = layout

    @classmethod
    def load(cls, data: bytes, *, limits: Limits, location: str, mount: str = "") -> TarBundle:
        """Inflate, screen and index a tar.gz archive (blocking: run it in a worker thread).

        Args:
            data: The whole compressed archive.
            limits: The bundle limits to enforce.
            location: The archive's URL, for messages.
            mount: A folder to place every member in (the skill's name, for the archive of
                one skill).

        Raises:
            LimitExceededError: The archive breaks a whole-archive limit.
            StorageError: The data is not a tar.gz archive.
        """
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
            refusal = screen(member, limits, available=len(tar), location=member_location)
            spans.setdefault(name, (member.offset_data, member.size))
            candidates.append(Candidate(mounted(name, mount), stored, refusal))
        return cls(tar, spans, build_layout(candidates))

    def read(self, key: str, *, location: str) -> bytes:
        """One member's bytes (the archive is already inflated)."""
        start, size = self._spans[key]
        return self._tar[start : start + size]


def screen(
    member: tarfile.TarInfo, limits: Limits, *, available: int, location: str
) -> StorageError | None:
    """Why one member is refused from its header alone, or ``None``.

    Args:
        member: The member's header.
        limits: The bundle limits.
        available: Size of the inflated archive: a member cannot end past it.
        location: The member's location, for messages.
    """
    if member.issym():
        return UnsafePathError("symlink members are refused", location=location)
    if member.islnk():
        return UnsafePathError("hard link members are refused", location=location)
    if member.issparse() or not member.isreg():
        return StorageError("only regular files and folders are accepted", location=location)
    too_large = oversize_member(member.size, limits, location=location)
    if too_large is not None:
        return too_large
    if member.offset_data + member.size > available:
        return StorageError(
            f"declares {member.size} bytes, but the archive ends first", location=location
        )
    return None


def _inflate(data: bytes, limits: Limits, location: str) -> bytes:
    """The tar inside ``data``, inflated no further than the bound in the module docstring."""
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
    """Every member header, refusing the archive once it holds more than the limit."""
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
