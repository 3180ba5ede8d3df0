"""A bundle's manifest (``skillfs-bundle.json``): the size and SHA-256 of every skill file.

``skillfs bundle`` writes it at the root of every archive. When a bundle holds one, skillfs
checks each member against it: from the central directory alone, a member the manifest does
not list, or whose declared size differs, refuses its skill at listing time; and every file
read (SKILL.md on load, resources on demand) is refused unless its bytes hash to the listed
SHA-256. A bundle without a manifest (a zip made by hand) loads unchecked.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from backends.errors import StorageError, VerificationError

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

    def __len__(self) -> int:
        return len(self._files)

    @classmethod
    def parse(cls, data: bytes, *, location: str) -> BundleManifest:
        """Read a manifest.

        Raises:
            StorageError: It is not a ``skillfs-bundle/1`` manifest: the bundle is damaged.
        """
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
        """Return ``data`` when it is what the manifest lists for ``path``.

        Raises:
            VerificationError: It is not (corrupted or altered since it was bundled).
        """
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
    """``(path, ListedFile)`` for every file of every skill of a parsed manifest."""
    for skill in skills:
        name = skill["name"]
        for item in skill["files"]:
            path, size, digest = item["path"], item["size"], item["sha256"]
            if not all(isinstance(value, str) for value in (name, path, digest)):
                raise TypeError(f"a file of skill {name!r} has a non-string field")
            if not isinstance(size, int) or size < 0 or not _SHA256.match(digest):
                raise ValueError(f"bad size or sha256 for {name}/{path}")
            yield f"{name}/{path}", ListedFile(size, bytes.fromhex(digest))
