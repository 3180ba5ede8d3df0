"""IndexBackend: the skills a well-known index lists, over HTTP(S) or from any store.

Fingerprints are artifact digests; artifacts are fetched on first use, verified and screened.
A mismatch or a failed fetch reads the index again once, else VerificationError. See
docs/index-and-publishing.md.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit, urlunsplit

from backends._base import AsyncResource, FileEntry, SkillDocument, SkillRef
from backends._digests import digest_of, digest_off_loop
from backends._errors import (
    LimitExceededError,
    ResourceNotFoundError,
    SignatureError,
    SkillNotFoundError,
    StorageError,
    VerificationError,
)
from backends._index.document import (
    INDEX_PATH,
    SIGNATURE_SUFFIX,
    SKILL_MD,
    Index,
    IndexEntry,
    artifact_path,
    parse_index,
)
from backends._limits import DEFAULT_LIMITS, Limits, check_size, too_large
from backends._paths import check_resource_path, check_skill_name
from backends._remote.archives import TarBundle, ZipBundle
from backends._remote.failures import Redactor
from backends._remote.filesystem import RemoteFS, Reopening
from backends._remote.layout import SkillFolder, StoredFile, fingerprint, summary
from backends._remote.urls import WEB, join_location
from backends.capabilities import IndexVerifier

MAX_SIGNATURE_BYTES = 4096  # a real one is about 150 bytes


class Fetched(NamedTuple):
    """A response's body, its validator (for "not modified" next time) and Content-Type."""

    data: bytes
    validator: str | None = None
    content_type: str | None = None


class _Listed(NamedTuple):
    entry: IndexEntry
    key: str
    location: str

    @property
    def skill_md_location(self) -> str:
        archive = self.entry.type != SKILL_MD
        return f"{self.location}!/SKILL.md" if archive else self.location


class _State(NamedTuple):
    raw: bytes
    validator: str | None
    skills: Mapping[str, _Listed]
    problems: Mapping[str, StorageError]
    refs: tuple[SkillRef, ...]


_EMPTY = _State(b"", None, {}, {}, ())
_STATE_TAG = b"skillfs-index/1\n"  # then the validator's line, then the index's bytes


class IndexBackend(AsyncResource):
    """The skills of a well-known index, read through ``transport``, verified by ``verifier``."""

    def __init__(
        self,
        transport: HttpTransport | StoreTransport,
        *,
        limits: Limits = DEFAULT_LIMITS,
        verifier: IndexVerifier | None = None,
    ) -> None:
        self._transport = transport
        self._limits = limits
        self._verifier = verifier
        self._state = _EMPTY
        self._imported: Fetched | None = None  # what another process read, not yet confirmed
        self._listed_once = False
        self._artifacts: dict[str, Artifact | StorageError] = {}
        self._downloads: dict[str, asyncio.Future[tuple[Artifact | StorageError, _Listed]]] = {}
        self._refreshing = asyncio.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"

    def require_signatures(self, verifier: IndexVerifier) -> None:
        """Serve only indexes ``verifier`` accepts, from the next read on."""
        self._verifier = verifier

    @property
    def location(self) -> str:
        """The index's URL (any password hidden)."""
        return self._transport.location

    async def list(self) -> Sequence[SkillRef]:
        """Every skill the index lists, and every entry it cannot use, with the reason."""
        return (await self._refresh()).refs

    async def get(self, name: str) -> SkillDocument:
        """A skill's SKILL.md: from the index when it carries it, else from the artifact."""
        listed = await self._listed(name)
        inline = listed.entry.skill_md
        if inline is not None:
            return SkillDocument(name, inline, listed.entry.digest, listed.skill_md_location)
        artifact, listed = await self._artifact(listed)
        stored = artifact.folder.skill_md
        data = await asyncio.to_thread(artifact.read, stored)
        return SkillDocument(name, data, listed.entry.digest, stored.location)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """A skill's visible files, from its artifact."""
        artifact, _ = await self._artifact(await self._listed(name))
        return artifact.folder.entries()

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """One file of a skill, from its verified artifact."""
        listed = await self._listed(name)
        relative = check_resource_path(path, location=f"{listed.location}!/{path}")
        artifact, _ = await self._artifact(listed)
        stored = artifact.folder.files.get(relative)
        if stored is None:
            raise ResourceNotFoundError("no such file", location=f"{listed.location}!/{relative}")
        check_size(stored.size, max_bytes, location=stored.location)
        return await asyncio.to_thread(artifact.read, stored)

    def export_state(self) -> bytes | None:
        """The index's validator and bytes as last read; ``None`` before the first read."""
        state = self._state
        if not state.raw:
            return None
        return b"%s%s\n%s" % (_STATE_TAG, (state.validator or "").encode(), state.raw)

    def import_state(self, state: bytes) -> None:
        """Send the first request conditional on an exported state's validator."""
        if self._state is _EMPTY and self.recognises(state):
            line, _, raw = state[len(_STATE_TAG) :].partition(b"\n")
            self._imported = Fetched(raw, line.decode(errors="replace") or None)

    @staticmethod
    def recognises(state: bytes) -> bool:
        """True when ``state`` is an index's exported state."""
        return state.startswith(_STATE_TAG)

    async def aclose(self) -> None:
        """Close the transport's connections and drop every artifact held."""
        self._artifacts.clear()
        self._state, self._listed_once = _EMPTY, False
        await self._transport.aclose()

    async def _refresh(self) -> _State:
        async with self._refreshing:
            state = self._state
            imported, self._imported = self._imported, None
            if state is not _EMPTY:
                imported = None
            validator = imported.validator if imported is not None else state.validator
            limit = self._limits.max_index_bytes
            fetched = await self._transport.fetch_index(validator, max_bytes=limit)
            self._listed_once = True
            if fetched is None and imported is not None:  # unchanged since another process
                try:
                    return self._adopt(imported, await self._verified(imported.data))
                except StorageError:  # a damaged state is never fatal: read the index
                    fetched = await self._transport.fetch_index(None, max_bytes=limit)
            if fetched is None or fetched.data == state.raw:
                if fetched is not None:
                    self._state = state._replace(validator=fetched.validator)
                return self._state
            return self._adopt(fetched, await self._verified(fetched.data))

    async def _verified(self, data: bytes) -> Index:
        """``data`` parsed, once a trusted key's signature and sequence hold (with a verifier)."""
        location, verifier = self._transport.location, self._verifier
        if verifier is not None:
            try:
                signature = await self._transport.fetch_signature(max_bytes=MAX_SIGNATURE_BYTES)
            except LimitExceededError as exc:
                raise SignatureError(
                    f"refused: the signature file is larger than {MAX_SIGNATURE_BYTES} bytes",
                    location=location,
                ) from exc
            await asyncio.to_thread(verifier.check_signature, data, signature, location=location)
        index = await asyncio.to_thread(parse_index, data, location=location)
        if verifier is not None:
            await asyncio.to_thread(verifier.check_sequence, index.sequence, location=location)
        return index

    def _adopt(self, fetched: Fetched, index: Index) -> _State:
        self._state = self._build(fetched, index)
        listed = {entry.entry.digest for entry in self._state.skills.values()}
        for digest in set(self._artifacts) - listed:
            del self._artifacts[digest]
        return self._state

    def _build(self, fetched: Fetched, index: Index) -> _State:
        skills: dict[str, _Listed] = {}
        problems = dict(index.problems)
        for name, entry in index.entries.items():
            try:
                key, location = self._transport.resolve(entry.url)
            except StorageError as exc:
                problems[name] = exc
                continue
            skills[name] = _Listed(entry, key, location)
        refs = [
            SkillRef(
                name,
                listed.entry.digest,
                listed.skill_md_location,
                len(listed.entry.skill_md) if listed.entry.skill_md is not None else None,
            )
            for name, listed in skills.items()
        ]
        refs += [
            SkillRef(
                label, f"refused:{error.message}", error.location or self.location, error=error
            )
            for label, error in problems.items()
        ]
        refs.sort(key=lambda ref: ref.name)
        return _State(fetched.data, fetched.validator, skills, problems, tuple(refs))

    async def _listed(self, name: str) -> _Listed:
        check_skill_name(name)
        state = self._state
        if not self._listed_once or (name not in state.skills and name not in state.problems):
            state = await self._refresh()
        listed = state.skills.get(name)
        if listed is not None:
            return listed
        problem = state.problems.get(name)
        if problem is not None:
            raise type(problem)(problem.message, location=problem.location)
        raise SkillNotFoundError(f"no skill named {name!r}", location=self.location)

    async def _artifact(self, listed: _Listed) -> tuple[Artifact, _Listed]:
        entry = listed.entry
        inline = entry.skill_md if entry.type == SKILL_MD else None
        if inline is not None and digest_of(inline) == entry.digest:  # in the index: verified
            return self._skill_md(listed, inline), listed
        found = self._artifacts.get(entry.digest)
        held, listed = (found, listed) if found is not None else await self._downloaded(listed)
        if isinstance(held, StorageError):
            raise type(held)(held.message, location=held.location)
        return held, listed

    async def _downloaded(self, listed: _Listed) -> tuple[Artifact | StorageError, _Listed]:
        """One download per digest, however many readers wait (or give up)."""
        digest = listed.entry.digest
        download = self._downloads.get(digest)
        if download is None:
            download = asyncio.ensure_future(self._download(listed))
            self._downloads[digest] = download
            download.add_done_callback(lambda _: self._downloads.pop(digest, None))
        return await asyncio.shield(download)

    async def _download(
        self, listed: _Listed, *, again: bool = True
    ) -> tuple[Artifact | StorageError, _Listed]:
        """Fetch, verify and screen one artifact; a refusal is kept like an artifact."""
        entry = listed.entry
        archive = entry.type != SKILL_MD
        limit = self._limits.bundle_download_bytes if archive else self._limits.max_skill_md_bytes
        try:
            fetched = await self._transport.fetch_artifact(
                listed.key, location=listed.location, max_bytes=limit
            )
        except StorageError:
            moved = await self._moved(listed) if again else None
            if moved is None:
                raise
            return await self._download(moved, again=False)
        digest = await digest_off_loop(fetched.data)
        if digest != entry.digest:
            listed = await self._newer(listed, digest)
        artifact: Artifact | StorageError
        if archive:
            try:
                artifact = await asyncio.to_thread(
                    open_archive,
                    entry.name,
                    fetched.data,
                    content_type=fetched.content_type,
                    limits=self._limits,
                    location=listed.location,
                )
            except StorageError as exc:
                artifact = exc
        else:
            artifact = self._skill_md(listed, fetched.data)
        self._artifacts[digest] = artifact
        return artifact, listed

    async def _moved(self, listed: _Listed) -> _Listed | None:
        """The entry a fresh index gives the skill when it names another artifact, if it does."""
        try:
            fresh = (await self._refresh()).skills.get(listed.entry.name)
        except StorageError:
            return None  # the artifact's own failure is the one to report
        return fresh if fresh is not None and fresh.key != listed.key else None

    async def _newer(self, listed: _Listed, digest: str) -> _Listed:
        """The fresh index's entry for these bytes; VerificationError when it lists others."""
        fresh = (await self._refresh()).skills.get(listed.entry.name)
        if fresh is not None and fresh.entry.digest == digest and fresh.key == listed.key:
            return fresh
        raise VerificationError(
            f"refused: the artifact's digest is {digest}, the index lists {listed.entry.digest} "
            "(changed since the index was read, or tampered with)",
            location=listed.location,
        )

    @staticmethod
    def _skill_md(listed: _Listed, data: bytes) -> Artifact:
        """A skill whose artifact is its SKILL.md alone."""
        stored = StoredFile("SKILL.md", len(data), listed.entry.digest, listed.location)
        folder = SkillFolder(listed.entry.name, stored, {"SKILL.md": stored})
        return Artifact(folder, lambda key, location: data)


ZIP = "zip"
TAR_GZ = "tar.gz"

_CONTENT_TYPES = {
    "application/zip": ZIP,
    "application/x-zip-compressed": ZIP,
    "application/gzip": TAR_GZ,
    "application/x-gzip": TAR_GZ,
    "application/x-gtar": TAR_GZ,
    "application/x-tgz": TAR_GZ,
}
_EXTENSIONS = ((".zip", ZIP), (".tar.gz", TAR_GZ), (".tgz", TAR_GZ))
_MAGIC = ((b"PK\x03\x04", ZIP), (b"PK\x05\x06", ZIP), (b"\x1f\x8b", TAR_GZ))


class Artifact(NamedTuple):
    """The files of one skill, screened, as its verified artifact holds them."""

    folder: SkillFolder
    read_member: Callable[..., bytes]  # (key, location=...): ZipBundle.read, TarBundle.read

    def read(self, stored: StoredFile) -> bytes:
        """One file's bytes (blocking: inflating a zip member takes CPU)."""
        return self.read_member(stored.key, location=stored.location)


def open_archive(
    name: str, data: bytes, *, content_type: str | None, limits: Limits, location: str
) -> Artifact:
    """Screen an archive of the skill ``name`` (blocking); a refusal names the members and why."""
    check_size(len(data), limits.max_bundle_bytes, location=location, what="archive")
    kind = archive_format(content_type, location, data)
    bundle: ZipBundle | TarBundle
    if kind == ZIP:
        bundle = ZipBundle.load(data, limits=limits, inner_root="", location=location, mount=name)
    else:
        bundle = TarBundle.load(data, limits=limits, location=location, mount=name)
    layout = bundle.layout
    folder = layout.skills.get(name)
    problems = [ref.error for ref in layout.strays if ref.error is not None]
    if folder is not None and folder.refusal is not None:
        problems.insert(0, folder.refusal)
    if problems:  # the layout saw each member below the skill: name them as archived
        messages = [problem.message.replace(f"'{name}/", "'") for problem in problems]
        raise summary(messages, problems[0])
    if folder is None:
        raise StorageError(
            f"the {kind} archive holds no SKILL.md at its root (files must not sit in a folder)",
            location=location,
        )
    return Artifact(folder, bundle.read)


def archive_format(content_type: str | None, url: str, data: bytes) -> str:
    """``zip`` or ``tar.gz``: by the Content-Type, else the URL's extension, else the bytes."""
    declared = (content_type or "").split(";", 1)[0].strip().lower()
    if declared in _CONTENT_TYPES:
        return _CONTENT_TYPES[declared]
    path = urlsplit(url).path.lower()
    for extension, kind in _EXTENSIONS:
        if path.endswith(extension):
            return kind
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    raise StorageError(
        "not a zip or tar.gz archive (by its Content-Type, URL or first bytes)", location=url
    )


class StoreTransport:
    """Fetches an index and its artifacts from one fsspec filesystem (which it closes).

    The first read is one GET (none when given the bytes ``read``); each refresh then one HEAD,
    and a GET only when the fingerprint differs (first, the MD5 ETag S3 gives those bytes).
    """

    def __init__(
        self, fs: RemoteFS, *, base: str, index: str, location: str, read: bytes | None = None
    ) -> None:
        self._fs = fs
        self._base = base.rstrip("/")
        self._index = index
        self._base_location = location
        self._read = read

    @classmethod
    def named(cls, fs: RemoteFS, *, location: str) -> StoreTransport:
        """The index ``fs.path`` names (an ``index.json``, the well-known one or another)."""
        path = fs.path.rstrip("/")
        suffix = f"/{INDEX_PATH}"
        if path.endswith(suffix):
            base, index = path[: -len(suffix)], INDEX_PATH
        else:
            base, _, index = path.rpartition("/")
        return cls(fs, base=base, index=index, location=location[: -len(index)].rstrip("/"))

    @classmethod
    async def found(cls, fs: RemoteFS, *, location: str, max_bytes: int) -> StoreTransport | None:
        """The index the folder ``fs.path`` holds, read in one GET; else ``None``."""
        path = fs.path.rstrip("/")
        try:
            read = await read_bounded(
                fs,
                f"{path}/{INDEX_PATH}" if path else INDEX_PATH,
                max_bytes,
                location=join_location(location, INDEX_PATH),
            )
        except ResourceNotFoundError:
            return None
        return cls(fs, base=path, index=INDEX_PATH, location=location, read=read)

    @property
    def location(self) -> str:
        """The index's URL."""
        return join_location(self._base_location, self._index)

    def resolve(self, url: str) -> tuple[str, str]:
        """The artifact's path on the filesystem and its URL (see :func:`artifact_path`)."""
        relative = artifact_path(self._index, url, location=self.location)
        return self._path(relative), join_location(self._base_location, relative)

    async def fetch_index(self, validator: str | None, *, max_bytes: int) -> Fetched | None:
        """Without a validator one GET; else one HEAD, and one GET when the index changed."""
        path, location = self._path(self._index), self.location
        if validator is None:
            data, self._read = self._read, None
            if data is None:
                data = await read_bounded(self._fs, path, max_bytes, location=location)
            # the fingerprint S3 gives a single-part upload (its ETag is the bytes' MD5)
            return Fetched(data, f"ETag:{hashlib.md5(data, usedforsecurity=False).hexdigest()}")
        details = await self._fs.info(path, location=location, missing=ResourceNotFoundError)
        token = fingerprint(details)
        if token == validator:
            return None
        size = details.get("size")
        if isinstance(size, int):
            check_size(size, max_bytes, location=location, what="skills index")
        data = await read_bounded(self._fs, path, max_bytes, location=location)
        return Fetched(data, token)

    async def fetch_artifact(self, key: str, *, location: str, max_bytes: int) -> Fetched:
        """One GET of at most ``max_bytes + 1`` bytes."""
        data = await read_bounded(self._fs, key, max_bytes, location=location, missing=StorageError)
        return Fetched(data)

    async def fetch_signature(self, *, max_bytes: int) -> bytes | None:
        """One GET of at most ``max_bytes + 1`` bytes; ``None`` when there is no signature."""
        index = self._index + SIGNATURE_SUFFIX
        location = join_location(self._base_location, index)
        try:
            return await read_bounded(self._fs, self._path(index), max_bytes, location=location)
        except ResourceNotFoundError:
            return None

    async def aclose(self) -> None:
        """Close the filesystem's session."""
        await self._fs.aclose()

    def _path(self, relative: str) -> str:
        return f"{self._base}/{relative}" if self._base else relative


async def read_bounded(
    fs: RemoteFS,
    path: str,
    max_bytes: int,
    *,
    location: str,
    missing: type[StorageError] = ResourceNotFoundError,
) -> bytes:
    """One file in one ranged GET of at most ``max_bytes + 1`` bytes; LimitExceededError past."""

    def read(filesystem: Any) -> Coroutine[Any, Any, bytes]:
        return filesystem._cat_file(path, start=0, end=max_bytes + 1)  # type: ignore[no-any-return]

    data = bytes(await fs.run(read, location=location, missing=missing))
    if len(data) > max_bytes:
        raise LimitExceededError(f"larger than the {max_bytes}-byte limit", location=location)
    return data


MAX_REDIRECTS = 10  # aiohttp's own default
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHUNK = 64 * 1024


def origin(url: str) -> tuple[str, str, int | None]:
    """A URL's origin: scheme, host and port (the scheme's default port when none is given)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


class HttpTransport:
    """Conditional GETs of an index over HTTP(S), and GETs of its artifacts.

    The caller's ``headers``, the storage options' headers and ``auth`` go to the index's own
    origin only: redirects are followed one hop at a time, credentials only while every hop so
    far stayed on that origin.
    """

    def __init__(self, remote: Reopening, headers: Mapping[str, str], redact: Redactor) -> None:
        self._url, options = remote.url, remote.options
        client = dict(options.get("client_kwargs") or {})
        self._origin_headers = {**client.pop("headers", {}), **headers}
        auth = options.pop("auth", client.pop("auth", None))  # an aiohttp.BasicAuth
        if auth is not None:
            self._origin_headers.setdefault("Authorization", auth.encode())
        options["client_kwargs"] = client
        self._remote = remote
        self._redact = redact

    @property
    def location(self) -> str:
        """The index's URL."""
        return self._redact.url(self._url)

    def resolve(self, url: str) -> tuple[str, str]:
        """The artifact's absolute http(s) URL, as the key and the location."""
        target = urljoin(self._url, url).split("#", 1)[0]
        if urlsplit(target).scheme not in WEB:
            raise StorageError(f"artifact URL {url!r} is not http(s)", location=self.location)
        return target, self._redact.url(target)

    async def fetch_index(self, validator: str | None, *, max_bytes: int) -> Fetched | None:
        """One GET, conditional on ``validator``; ``None`` when answered 304."""
        headers = {}
        kind, _, value = (validator or "").partition(":")
        if kind == "etag":
            headers["If-None-Match"] = value
        elif kind == "modified":
            headers["If-Modified-Since"] = value
        status, fetched = await self._get(
            self._url, headers, max_bytes, what="skills index", location=self.location
        )
        return None if status == 304 else fetched

    async def fetch_artifact(self, key: str, *, location: str, max_bytes: int) -> Fetched:
        """One GET, with the credentials only when the artifact is on the index's origin."""
        _, fetched = await self._get(
            key, {}, max_bytes, what="artifact", location=location, missing=StorageError
        )
        return fetched

    async def fetch_signature(self, *, max_bytes: int) -> bytes | None:
        """One GET of the index's URL plus ``.sig``; ``None`` when answered 404."""
        parts = urlsplit(self._url)
        url = urlunsplit(parts._replace(path=parts.path + SIGNATURE_SUFFIX))
        location = self._redact.url(url)
        try:
            _, fetched = await self._get(
                url, {}, max_bytes, what="signature file", location=location
            )
        except ResourceNotFoundError:
            return None
        return fetched.data

    async def aclose(self) -> None:
        """Close the HTTP session; a later request opens a new one."""
        await self._remote.aclose()

    async def _get(
        self,
        url: str,
        headers: Mapping[str, str],
        max_bytes: int,
        *,
        what: str,
        location: str,
        missing: type[StorageError] = ResourceNotFoundError,
    ) -> tuple[int, Fetched]:
        async def get(fs: Any) -> tuple[int, Fetched]:
            session = await fs.set_session()
            response = await self._following(session, url, headers, fs.kwargs, location)
            async with response:
                if response.status == 404:
                    raise FileNotFoundError(url)
                response.raise_for_status()
                declared = response.content_length
                if declared is not None and declared > max_bytes:
                    raise too_large(what, declared, max_bytes, location=location)
                body = bytearray()
                async for chunk in response.content.iter_chunked(_CHUNK):
                    body += chunk
                    if len(body) > max_bytes:
                        raise too_large(what, len(body), max_bytes, location=location)
                found = response.headers  # case-insensitive
                etag, modified = found.get("ETag"), found.get("Last-Modified")
                validator = f"etag:{etag}" if etag else f"modified:{modified}" if modified else None
                return response.status, Fetched(bytes(body), validator, found.get("Content-Type"))

        fs = await self._remote.get()
        return await fs.run(get, location=location, missing=missing)

    async def _following(
        self,
        session: Any,
        url: str,
        headers: Mapping[str, str],
        options: Mapping[str, Any],
        location: str,
    ) -> Any:
        """The final response to a GET of ``url``, redirects followed one hop at a time."""
        trusted, home = True, origin(self._url)
        for _ in range(MAX_REDIRECTS + 1):
            trusted = trusted and origin(url) == home
            sent = {**headers, **self._origin_headers} if trusted else dict(headers)
            response = await session.get(
                url, **{**options, "headers": sent, "allow_redirects": False}
            )
            if response.status not in _REDIRECTS:
                return response
            target = response.headers.get("Location")
            response.release()
            if not target:
                raise StorageError(
                    f"redirect {response.status} without a Location", location=location
                )
            url = urljoin(url, target).split("#", 1)[0]
            if urlsplit(url).scheme.lower() not in WEB:
                raise StorageError(f"redirected to a non-http(s) URL {target!r}", location=location)
        raise StorageError(f"more than {MAX_REDIRECTS} redirects", location=location)
