"""A well-known index kept in any fsspec store: a bucket, a folder, a repository.

A refresh is one HEAD of the index (its fingerprint: S3 ETag, GCS generation, GitHub blob sha,
local mtime and size), plus one GET when it changed; the first read is one GET. An artifact is
one GET, never longer than its limit (a range request). Entry URLs resolve against the index's
URL (RFC 3986) inside the base folder, the one holding ``.well-known/``: relative
(``alpha.zip``) and path-absolute (``/.well-known/agent-skills/alpha.zip``) URLs name files of
that folder; a URL naming another host or scheme is refused, since an index in a bucket names
files of its bucket.
"""

from __future__ import annotations

import hashlib
from collections.abc import Coroutine
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from backends.capabilities import IndexVerifier
from backends.errors import LimitExceededError, ResourceNotFoundError, StorageError
from backends.index.document import INDEX_PATH, SIGNATURE_SUFFIX
from backends.index.reader import Fetched, IndexBackend
from backends.limits import Limits, check_size
from backends.paths import check_relative_path
from backends.remote.filesystem import RemoteFS
from backends.remote.fingerprints import fingerprint
from backends.remote.urls import join_location

_BASE = "http://base.invalid/"
"""A stand-in origin for resolving entry URLs as RFC 3986 says, inside the base folder."""


class StoreTransport:
    """Fetches an index and its artifacts from one fsspec filesystem.

    The first read is one GET with no HEAD before it; the next refresh makes the HEAD that
    gives the index's fingerprint, and reads the index again only when it differs from the
    validator: after a first read, that is the fingerprint S3 gives a single-part upload of
    the bytes read (their MD5), so an unchanged index on S3 is never read twice.

    Args:
        fs: The opened filesystem; the transport closes it.
        base: The base folder's path on ``fs``.
        index: The index's path relative to ``base``.
        location: The base folder's URL, for messages.
        read: The index's bytes, when a check just read them (saving the first GET).
    """

    def __init__(
        self, fs: RemoteFS, *, base: str, index: str, location: str, read: bytes | None = None
    ) -> None:
        self._fs = fs
        self._base = base.rstrip("/")
        self._index = index
        self._base_location = location
        self._read = read

    @property
    def location(self) -> str:
        """The index's URL."""
        return join_location(self._base_location, self._index)

    def resolve(self, url: str) -> tuple[str, str]:
        """The artifact's path on the filesystem and its URL.

        Raises:
            StorageError: The URL names another host or scheme, or leaves the base folder.
        """
        relative = artifact_path(self._index, url, location=self.location)
        return self._path(relative), join_location(self._base_location, relative)

    async def fetch_index(self, validator: str | None, *, max_bytes: int) -> Fetched | None:
        """Without a validator one GET; else one HEAD, and one GET when the index changed."""
        path, location = self._path(self._index), self.location
        if validator is None:
            data, self._read = self._read, None
            if data is None:
                data = await read_bounded(
                    self._fs, path, max_bytes, location=location, missing=ResourceNotFoundError
                )
            return Fetched(data, _content_token(data))
        details = await self._fs.info(path, location=location, missing=ResourceNotFoundError)
        token = fingerprint(details)
        if token == validator:
            return None
        size = details.get("size")
        if isinstance(size, int):
            check_size(size, max_bytes, location=location, what="skills index")
        data = await read_bounded(
            self._fs, path, max_bytes, location=location, missing=ResourceNotFoundError
        )
        return Fetched(data, token)

    async def fetch_artifact(self, key: str, *, location: str, max_bytes: int) -> Fetched:
        """One GET of at most ``max_bytes + 1`` bytes."""
        return Fetched(await read_bounded(self._fs, key, max_bytes, location=location))

    async def fetch_signature(self, *, max_bytes: int) -> bytes | None:
        """One GET of at most ``max_bytes + 1`` bytes; ``None`` when there is no signature."""
        index = self._index + SIGNATURE_SUFFIX
        location = join_location(self._base_location, index)
        try:
            return await read_bounded(
                self._fs,
                self._path(index),
                max_bytes,
                location=location,
                missing=ResourceNotFoundError,
            )
        except ResourceNotFoundError:
            return None

    async def aclose(self) -> None:
        """Close the filesystem's session."""
        await self._fs.aclose()

    def _path(self, relative: str) -> str:
        return f"{self._base}/{relative}" if self._base else relative


def artifact_path(index: str, url: str, *, location: str) -> str:
    """An entry's ``url`` as a path in the base folder, ``index`` being the index's path there.

    Raises:
        StorageError: The URL names another host or scheme, or leaves the base folder.
    """
    target = urlsplit(urljoin(_BASE + index, url))
    if f"{target.scheme}://{target.netloc}/" != _BASE:
        raise StorageError(
            f"artifact URL {url!r} names another host: an index in a bucket or folder "
            "names its artifacts with relative URLs",
            location=location,
        )
    return check_relative_path(unquote(target.path).lstrip("/"))


async def read_bounded(
    fs: RemoteFS,
    path: str,
    max_bytes: int,
    *,
    location: str,
    missing: type[StorageError] = StorageError,
) -> bytes:
    """One file in one GET of at most ``max_bytes + 1`` bytes (a range request).

    Raises:
        LimitExceededError: The file is larger than ``max_bytes``.
    """

    def read(filesystem: Any) -> Coroutine[Any, Any, bytes]:
        return filesystem._cat_file(path, start=0, end=max_bytes + 1)  # type: ignore[no-any-return]

    data = bytes(await fs.run(read, location=location, missing=missing))
    if len(data) > max_bytes:
        raise LimitExceededError(f"larger than the {max_bytes}-byte limit", location=location)
    return data


async def published_index(
    fs: RemoteFS,
    *,
    location: str,
    limits: Limits,
    verifier: IndexVerifier | None = None,
    known: bool = False,
) -> IndexBackend | None:
    """The index serving ``fs.path``: the path names one, or its folder holds one; else ``None``.

    A folder is checked by reading ``.well-known/agent-skills/index.json``: one GET, whose
    body is the index's first read (``FsspecBackend`` asks only when its listing holds one).

    Args:
        fs: The opened filesystem; an index backend takes it over, to close it.
        location: The URL of ``fs.path``, for messages.
        limits: The limits the index backend applies.
        verifier: Checks each new index before it is used (signed publications).
        known: The folder held an index when another process read it: no check, the index's
            first listing tells (its HEAD fails when the index is gone).

    Raises:
        LimitExceededError: The folder's index is larger than ``Limits.max_index_bytes``.
    """
    path = fs.path.rstrip("/")
    if path.endswith(".json"):
        suffix = f"/{INDEX_PATH}"
        if path.endswith(suffix):
            base, index = path[: -len(suffix)], INDEX_PATH
        else:
            base, _, index = path.rpartition("/")
        base_location = location[: len(location) - len(index)].rstrip("/")
        transport = StoreTransport(fs, base=base, index=index, location=base_location)
        return IndexBackend(transport, limits=limits, verifier=verifier)
    if known:
        transport = StoreTransport(fs, base=path, index=INDEX_PATH, location=location)
        return IndexBackend(transport, limits=limits, verifier=verifier)
    candidate = f"{path}/{INDEX_PATH}" if path else INDEX_PATH
    where = join_location(location, INDEX_PATH)
    try:
        read = await read_bounded(
            fs, candidate, limits.max_index_bytes, location=where, missing=ResourceNotFoundError
        )
    except ResourceNotFoundError:
        return None
    transport = StoreTransport(fs, base=path, index=INDEX_PATH, location=location, read=read)
    return IndexBackend(transport, limits=limits, verifier=verifier)


def _content_token(data: bytes) -> str:
    """The fingerprint S3 gives a single-part upload of ``data`` (its ETag is their MD5)."""
    return f"ETag:{hashlib.md5(data, usedforsecurity=False).hexdigest()}"
