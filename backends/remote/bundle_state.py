"""A zip bundle's exported state: what a new process needs to list it without reading it.

The archive's fingerprint and size, its bytes from the central directory to the end, and its
manifest member's bytes (:mod:`backends.remote.bundle_manifest`): a new process whose HEAD
finds the same fingerprint and size rebuilds the same screened layout from them, with no other
request, and reads members with ranged requests when they are wanted (zipfile checks each one's
CRC-32, so bytes of another archive are never served as these).
"""

from __future__ import annotations

import io
import json
from typing import IO, NamedTuple

from backends.remote.zip_end import TAIL_BYTES, read_end_record
from backends.remote.zipsafety import ZipBundle

_TAG = b"skillfs-bundle/1\n"


class SavedBundle(NamedTuple):
    """An archive's listing, as saved.

    Attributes:
        size: The archive's size.
        directory_start: Where ``directory`` starts in the archive.
        directory: The archive's bytes from its central directory to its end.
        manifest_start: Where ``manifest`` starts (its member's local header).
        manifest: The manifest member's bytes, as stored (empty: no manifest).
        token: The archive's fingerprint when it was saved.
    """

    size: int
    directory_start: int
    directory: bytes
    manifest_start: int
    manifest: bytes
    token: str = ""

    def pinned(self) -> tuple[tuple[int, bytes], ...]:
        """The saved bytes a ranged archive holds besides the directory."""
        return ((self.manifest_start, self.manifest),) if self.manifest else ()

    def encode(self) -> bytes:
        """The exported state."""
        header = [self.token, self.size, self.directory_start, self.manifest_start]
        return b"%s%s\n%s%s" % (
            _TAG,
            json.dumps([*header, len(self.directory)]).encode(),
            self.directory,
            self.manifest,
        )

    @classmethod
    def decode(cls, state: bytes) -> SavedBundle | None:
        """The saved listing in an exported state; ``None`` when it is not one (or damaged)."""
        if not state.startswith(_TAG):
            return None
        line, _, rest = state[len(_TAG) :].partition(b"\n")
        try:
            token, size, directory_start, manifest_start, length = json.loads(line)
        except ValueError:
            return None
        fields = (size, directory_start, manifest_start, length)
        if not (isinstance(token, str) and all(type(value) is int for value in fields)):
            return None
        if not 0 <= length <= len(rest):
            return None
        return cls(size, directory_start, rest[:length], manifest_start, rest[length:], token)


def saved_bundle(file: IO[bytes] | io.RawIOBase, size: int, bundle: ZipBundle) -> SavedBundle:
    """What to save of an indexed archive read through ``file`` (blocking).

    The manifest's bytes must be at hand (an archive in memory, or a ranged one inside the
    span that read them): nothing is fetched for this.
    """
    tail_start = max(0, size - TAIL_BYTES)
    file.seek(tail_start)
    end = read_end_record(file.read() or b"", tail_start, location="")
    file.seek(end.directory_start)
    directory = file.read() or b""
    manifest_start, manifest = 0, b""
    for start, stop in bundle.manifest_spans():
        file.seek(start)
        manifest_start, manifest = start, file.read(stop - start) or b""
    return SavedBundle(size, end.directory_start, directory, manifest_start, manifest)
