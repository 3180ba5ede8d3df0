"""A zip archive's end record, read from its last bytes before anything else is downloaded.

The end-of-central-directory record (zip64's too) says how many members the archive declares
and where its central directory lies, so a bundle with too many members is refused after one
ranged request for its tail, and a large one can be read member by member.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from backends.errors import StorageError

_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_ZIP64_EOCD_SIGNATURE = b"PK\x06\x06"
_MAX_COMMENT = 0xFFFF
_SATURATED = (0xFFFF, 0xFFFFFFFF)

TAIL_BYTES = _ZIP64_EOCD.size + _ZIP64_LOCATOR.size + _EOCD.size + _MAX_COMMENT
"""How many final bytes of an archive always hold its end records."""


class EndRecord(NamedTuple):
    """What an archive's end record declares.

    Attributes:
        entries: How many members the central directory holds.
        directory_start: Where the central directory starts in the archive.
        directory_end: Where it ends: the end record's own position, as zipfile reads it
            (so data prepended to the archive shifts both).
    """

    entries: int
    directory_start: int
    directory_end: int

    @property
    def directory_size(self) -> int:
        """How many bytes the central directory takes."""
        return self.directory_end - self.directory_start


def read_end_record(tail: bytes, tail_start: int, *, location: str) -> EndRecord:
    """The end record found in ``tail``, the archive's bytes from ``tail_start`` to its end.

    Raises:
        StorageError: No end record: not a zip archive.
    """
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
