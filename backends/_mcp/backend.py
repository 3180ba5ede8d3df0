"""McpSkillsBackend: the skills of an MCP server's skills extension (SEP-2640) as a backend.

A listing reads no file; every read is verified against its entry's digest and size (a
mismatch is checked once against ``skills/get``). See docs/mcp.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from backends._base import AsyncResource, FileEntry, SkillDocument, SkillRef
from backends._digests import digest_off_loop, files_digest
from backends._errors import (
    LimitExceededError,
    ResourceNotFoundError,
    StorageError,
    UnsupportedSourceError,
    VerificationError,
    echoed,
)
from backends._limits import DEFAULT_LIMITS, HOST_SKILL_BYTES, HOST_SKILL_FILES, check_size
from backends._mcp.connection import McpConnection
from backends._mcp.extension import (
    SKILL_MD,
    GetSkillParams,
    GetSkillRequest,
    GetSkillResult,
    ListSkillsParams,
    ListSkillsRequest,
    ListSkillsResult,
    SkillEntry,
    SkillFile,
    parse_entry,
)
from backends._paths import check_resource_path, check_skill_name
from backends.capabilities import MCP, Provenance

MAX_PAGES = 1000  # most skills/list pages one listing follows


class McpSkillsBackend(AsyncResource):
    """Skills served by an MCP server's skills extension (``server``, ``label``: docs/mcp.md).

    ``timeout`` bounds the handshake, any one answer and a whole listing; ``url`` is the ``mcp+``
    URL that reopens this server, or its location when none can.
    """

    def __init__(
        self,
        server: Any,
        *,
        label: str | None = None,
        max_files: int = HOST_SKILL_FILES,
        max_skill_bytes: int = HOST_SKILL_BYTES,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if isinstance(server, list | tuple):
            server = _stdio(server)
        self._label = label or default_label(server)
        self.url = _source_url(server, self._label)
        self._connection = McpConnection(
            server,
            location=self.location,
            timeout=timeout,
            headers=headers,
            max_answer_bytes=2 * max(max_skill_bytes, HOST_SKILL_BYTES),
        )
        self._max_files = max_files
        self._max_skill_bytes = max_skill_bytes
        self._timeout = timeout
        self._entries: dict[str, SkillEntry] = {}

    def __repr__(self) -> str:
        return f"McpSkillsBackend({self._label!r}, {len(self._entries)} skills)"

    @property
    def location(self) -> str:
        """``mcp[<label>]``: the origin every skill location starts with."""
        return f"mcp[{self._label}]"

    async def list(self) -> Sequence[SkillRef]:
        """Every skill of every ``skills/list`` page, sorted by name; bad entries carry errors."""
        if not await self._connection.offers_skills():
            raise StorageError(
                "the server does not offer the skills extension (io.modelcontextprotocol/skills)",
                location=self.location,
            )
        refs: dict[str, SkillRef] = {}
        entries: dict[str, SkillEntry] = {}
        listing = await _all_pages(self._connection, self.location, self._timeout)
        for index, raw in enumerate(listing):
            try:
                entry = parse_entry(raw)
            except ValueError as exc:
                uri = raw.get("uri") if isinstance(raw, Mapping) else None
                name = _unique(_name_hint(uri, index), refs)
                where = f"{self.location}:{uri if isinstance(uri, str) else '(no uri)'}"
                refs[name] = SkillRef(name, "", where, error=StorageError(str(exc), location=where))
                continue
            name = _unique(entry.name, refs, prefix=entry.prefix)
            refs[name] = self._ref(name, entry)
            if refs[name].error is None:
                entries[name] = entry
        self._entries = entries
        return [refs[name] for name in sorted(refs)]

    async def get(self, name: str) -> SkillDocument:
        """The verified SKILL.md of one skill."""
        entry = await self._entry(name)
        data, entry = await self._fetch(name, entry, SKILL_MD)
        return SkillDocument(name, data, entry.skill_md.digest, self._where(entry.skill_md))

    async def files(self, name: str) -> Sequence[FileEntry]:
        """The files the skill's entry lists, with their sizes; the digest is the fingerprint."""
        entry = await self._entry(name)
        return [
            FileEntry(path, file.size, file.digest) for path, file in sorted(entry.files.items())
        ]

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """One verified file of a skill."""
        entry = await self._entry(name)
        relative = check_resource_path(path, location=self._where(entry.skill_md))
        file = entry.files.get(relative)
        if file is None:
            raise ResourceNotFoundError(
                f"the skill's entry lists no file {echoed(relative)!r}", location=self.location
            )
        check_size(file.size, max_bytes, location=self._where(file))
        data, _ = await self._fetch(name, entry, relative)
        return data

    async def change_events(self) -> AsyncIterator[None] | None:
        """The server's resource list-changed notifications."""
        return await self._connection.change_events()

    def provenance(self, name: str) -> Provenance:
        """:data:`~backends.capabilities.MCP`, with the digest of every file its entry lists."""
        entry = self._entries.get(name)
        if entry is None:
            return Provenance(MCP)
        return Provenance(MCP, files_digest({path: f.digest for path, f in entry.files.items()}))

    async def aclose(self) -> None:
        """Close the connection (a stdio server exits)."""
        await self._connection.aclose()

    def _ref(self, name: str, entry: SkillEntry) -> SkillRef:
        where = self._where(entry.skill_md)
        error: StorageError | None = None
        if len(entry.files) > self._max_files:
            error = LimitExceededError(
                f"the skill lists {len(entry.files)} files, over the {self._max_files}-file limit",
                location=where,
            )
        elif entry.total_size > self._max_skill_bytes:
            error = LimitExceededError(
                f"the skill's files hold {entry.total_size} bytes, over the "
                f"{self._max_skill_bytes}-byte limit",
                location=where,
            )
        skill_md = entry.skill_md
        return SkillRef(
            name,
            skill_md.digest,
            where,
            skill_md.size,
            error,
            frontmatter=entry.frontmatter,
            digest=skill_md.digest,
        )

    async def _entry(self, name: str) -> SkillEntry:
        check_skill_name(name)
        entry = self._entries.get(name)
        if entry is None:
            entry = await self._checked(name, f"skill://{name}/{SKILL_MD}")
            self._entries[name] = entry
        return entry

    async def _checked(self, name: str, uri: str) -> SkillEntry:
        request = GetSkillRequest(params=GetSkillParams(uri=uri))
        result = await self._connection.request(
            request, GetSkillResult, missing=f"no skill named {name!r}"
        )
        try:
            entry = parse_entry(result.skill)
        except ValueError as exc:
            raise StorageError(str(exc), location=f"{self.location}:{uri}") from exc
        error = self._ref(name, entry).error
        if error is not None:
            raise error
        return entry

    async def _fetch(self, name: str, entry: SkillEntry, path: str) -> tuple[bytes, SkillEntry]:
        """Read and verify one listed file; on a mismatch, check once against a fresh entry."""
        file = entry.files[path]
        data = await self._connection.read(file.uri, missing=f"the server no longer serves {path}")
        digest = await digest_off_loop(data)
        if _matches(data, digest, file):
            return data, entry
        fresh = None
        with contextlib.suppress(StorageError):  # no current entry to be had: the listed one holds
            fresh = await self._checked(name, entry.uri)
        if fresh is not None and (path == SKILL_MD or fresh.skill_md == entry.skill_md):
            current = fresh.files.get(path)
            if current is not None and _matches(data, digest, current):
                self._entries[name] = fresh
                return data, fresh
        raise VerificationError(
            f"refused: {len(data)} bytes with digest {digest} do not match the "
            f"{file.size} bytes and digest {file.digest} its entry lists (changed since listed, "
            "or tampered with)",
            location=self._where(file),
        )

    def _where(self, file: SkillFile) -> str:
        return f"{self.location}:{file.uri}"


async def _all_pages(connection: McpConnection, location: str, seconds: float) -> list[Any]:
    """The raw entries of every ``skills/list`` page, all read within ``seconds``."""
    raw: list[Any] = []
    cursor: str | None = None
    pages = 0
    try:
        async with asyncio.timeout(seconds) as scope:
            while pages < MAX_PAGES:
                request = ListSkillsRequest(params=ListSkillsParams(cursor=cursor))
                page = await connection.request(request, ListSkillsResult, missing="")
                pages += 1
                raw.extend(page.skills)
                cursor = page.next_cursor
                if not cursor:
                    return raw
    except TimeoutError as exc:
        if not scope.expired():
            raise
        raise StorageError(
            f"timed out: skills/list did not complete within {seconds:g} s, every page "
            f"included (the backend's timeout; {pages} pages read)",
            location=location,
        ) from exc
    raise StorageError(f"skills/list went on past {MAX_PAGES} pages", location=location)


def default_label(server: Any) -> str:
    """A label for a server: a URL's host and path, or a command's name and arguments."""
    if isinstance(server, str):
        parts = urlsplit(server)
        return f"{parts.netloc}{parts.path}" if parts.netloc else server
    command = getattr(server, "command", None)
    if isinstance(command, str):
        args = [str(arg) for arg in getattr(server, "args", ())]
        return " ".join([os.path.basename(command), *args])
    return type(server).__name__


def open_url(url: str, **options: Any) -> McpSkillsBackend:
    """The backend for ``mcp+http(s)://…`` or ``mcp+stdio://COMMAND ARGS`` (``#LABEL``)."""
    scheme, _, rest = url.partition("://")
    address, _, label = rest.rpartition("#") if "#" in rest else (rest, "", "")
    if not address.strip():
        raise UnsupportedSourceError(
            "an MCP source names a server: mcp+https://host/mcp or mcp+stdio://COMMAND ARGS",
            location=url,
        )
    transport = scheme.lower().removeprefix("mcp+")
    server: Any = shlex.split(address) if transport == "stdio" else f"{transport}://{address}"
    return McpSkillsBackend(server, label=label or None, **options)


def _source_url(server: Any, label: str) -> str:
    if isinstance(server, str):
        url = f"mcp+{server}"
    elif isinstance(getattr(server, "command", None), str):
        url = "mcp+stdio://" + shlex.join([server.command, *server.args])
    else:
        return f"mcp[{label}]"
    return url if label == default_label(server) else f"{url}#{label}"


def _stdio(command: Sequence[str]) -> Any:
    from mcp import StdioServerParameters

    if not command:
        raise ValueError("the server command is empty")
    return StdioServerParameters(command=command[0], args=list(command[1:]))


def _matches(data: bytes, digest: str, file: SkillFile) -> bool:
    return len(data) == file.size and digest == file.digest


def _unique(name: str, taken: Mapping[str, object], *, prefix: str = "") -> str:
    if name not in taken:
        return name
    candidate = f"{prefix.replace('/', '.')}.{name}" if prefix else name
    index = 2
    while candidate in taken:
        candidate, index = f"{name}.{index}", index + 1
    return candidate


def _name_hint(uri: Any, index: int) -> str:
    """A name for an unreadable entry: from its URI, else its place in the listing."""
    if isinstance(uri, str):
        segment = uri.removesuffix("/" + SKILL_MD).rstrip("/").rpartition("/")[2]
        with contextlib.suppress(StorageError):
            return check_skill_name(segment)
    return f"entry-{index + 1}"
