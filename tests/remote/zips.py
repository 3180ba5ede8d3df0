"""Zip archives for tests: ordinary ones, and hostile ones crafted member by member."""

from __future__ import annotations

import io
import stat
import struct
import zipfile
from collections.abc import Mapping

_CENTRAL_HEADER = b"PK\x01\x02"
_LOCAL_HEADER = b"PK\x03\x04"


def zip_bytes(tree: Mapping[str, bytes], *, prefix: str = "") -> bytes:
    """An archive holding ``tree`` (``{path: bytes}``), each path under ``prefix``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in tree.items():
            archive.writestr(prefix + path, data)
    return buffer.getvalue()


def zip_with(tree: Mapping[str, bytes], *extra: tuple[str, bytes, dict[str, bool]]) -> bytes:
    """An archive of ``tree`` plus hand-made members ``(name, data, {"symlink": True})``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in tree.items():
            archive.writestr(name, data)
        for name, data, flags in extra:
            add_member(archive, name, data, **flags)
    return buffer.getvalue()


def add_member(archive: zipfile.ZipFile, name: str, data: bytes, *, symlink: bool = False) -> None:
    """Write one member, optionally with the mode bits of a symlink."""
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    if symlink:
        info.create_system = 3
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, data)


def declare_size(data: bytes, member: str, size: int) -> bytes:
    """Rewrite the uncompressed size ``member`` declares, in both of its headers.

    The compressed bytes stay as they are, so an archive can claim gigabytes while holding a
    few bytes -- or garbage that would fail to inflate, proving nothing was inflated.
    """
    return _patch(data, member, central_at=24, local_at=22, fmt="<L", value=size)


def mark_encrypted(data: bytes, member: str) -> bytes:
    """Set the "encrypted" flag of ``member`` (zipfile clears flags it did not set itself)."""
    return _patch(data, member, central_at=8, local_at=6, fmt="<H", value=0x1)


def _patch(
    data: bytes, member: str, *, central_at: int, local_at: int, fmt: str, value: int
) -> bytes:
    """Overwrite one field of ``member`` in its central and local headers."""
    patched = bytearray(data)
    encoded = member.encode()
    # (signature, offset of the field, of the name length, of the name)
    layouts = ((_CENTRAL_HEADER, central_at, 28, 46), (_LOCAL_HEADER, local_at, 26, 30))
    for signature, field_at, name_length_at, name_at in layouts:
        start = patched.find(signature)
        while start >= 0:
            length = struct.unpack_from("<H", patched, start + name_length_at)[0]
            if bytes(patched[start + name_at : start + name_at + length]) == encoded:
                struct.pack_into(fmt, patched, start + field_at, value)
            start = patched.find(signature, start + 4)
    return bytes(patched)


def corrupt_member_data(data: bytes, member: str) -> bytes:
    """Overwrite the compressed bytes of ``member`` with garbage that cannot inflate."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = archive.getinfo(member)
    start = info.header_offset
    name_length, extra_length = struct.unpack_from("<HH", data, start + 26)
    body = start + 30 + name_length + extra_length
    patched = bytearray(data)
    patched[body : body + info.compress_size] = b"\xff" * info.compress_size
    return bytes(patched)


def with_zip64_count(archive: bytes, count: int) -> bytes:
    """Declare ``count`` members the zip64 way: EOCD count 0xFFFF, the real one in a record."""
    end = archive.rfind(b"PK\x05\x06")
    record_at = end
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, 0, 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, record_at, 1)
    eocd = bytearray(archive[end:])
    struct.pack_into("<HH", eocd, 8, 0xFFFF, 0xFFFF)
    return archive[:end] + record + locator + bytes(eocd)
