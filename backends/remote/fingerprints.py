"""Fingerprints from a listing's details alone: no extra request, never a timestamp alone.

Per store, the cheapest trustworthy token: S3 ``ETag``, GCS ``generation``, GitHub blob ``sha``,
an HTTP ``ETag``. Stores with no content token (local and memory filesystems, HTTP servers
without ETags) fall back to the modification time with the size (and inode where there is one).
Zip members get CRC+size in :mod:`backends.remote.zipsafety`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backends.errors import UnsafePathError
from backends.remote.github import SYMLINK_MODE
from backends.remote.layout import Candidate, StoredFile
from backends.remote.urls import join_location

_CONTENT_KEYS = ("generation", "ETag", "etag", "sha", "md5Hash", "Content-MD5", "Digest")
_TIME_KEYS = ("mtime", "LastModified", "Last-Modified", "updated", "created")


def fingerprint(details: Mapping[str, Any]) -> str:
    """The fingerprint of one listed file from its details."""
    for key in _CONTENT_KEYS:
        value = details.get(key)
        if value not in (None, ""):
            return f"{key}:{str(value).strip(chr(34))}"
    stamp = next((details[key] for key in _TIME_KEYS if details.get(key) is not None), "")
    return f"time:{stamp}:{details.get('size')}:{details.get('ino', '')}"


def listing_candidates(
    listing: Mapping[str, Mapping[str, Any]], root: str, *, base: str
) -> list[Candidate]:
    """Turn a detailed recursive listing of ``root`` into candidates for a layout.

    Args:
        listing: ``{path: details}`` as fsspec's ``find(root, detail=True)`` returns it.
        root: The listed folder, as the filesystem spells it.
        base: The folder's URL for messages; each file's location is ``base/relative``.
    """
    prefix = root if not root or root.endswith("/") else f"{root}/"
    candidates = []
    for name, details in listing.items():
        if details.get("type") == "directory" or not name.startswith(prefix):
            continue
        relative = name[len(prefix) :]
        location = join_location(base, relative)
        size = details.get("size")
        listed = isinstance(size, int)
        stored = StoredFile(name, int(size or 0), fingerprint(details), location, listed)
        refusal = None
        if details.get("islink") or details.get("mode") == SYMLINK_MODE:
            refusal = UnsafePathError("symlinks are refused", location=location)
        candidates.append(Candidate(relative, stored, refusal))
    return candidates
