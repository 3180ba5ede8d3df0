"""SkillServer: a catalog over MCP, by the skills extension and by plain tools (docs/mcp.md).

The extension (SEP-2640) gets ``skills/list``, ``skills/get``, a ``skill://<name>/<path>``
resource per file and ``resources/directory/read``; the plain tools are the shared skill tools,
their ``skill_name`` an enum rebuilt per ``tools/list``. :meth:`SkillServer.refresh` and
:meth:`SkillServer.watch` tell every client when the skills changed (:class:`ListChanged`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple
from urllib.parse import unquote

import mcp_types as types
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

from backends._base import FileEntry
from backends._digests import digest_of
from backends._errors import (
    ResourceNotFoundError,
    SkillNotFoundError,
    StorageError,
    echoed,
    installed_version,
)
from backends._limits import HOST_SKILL_BYTES, HOST_SKILL_FILES
from backends._mcp.extension import (
    DIRECTORY_READ_METHOD,
    GET_METHOD,
    LIST_METHOD,
    SKILL_MD,
    SKILLS_EXTENSION,
    GetSkillParams,
    ListSkillsParams,
    ReadDirectoryParams,
    ReadDirectoryResult,
    resource_uri,
)
from backends.capabilities import settled
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry, frontmatter_of
from skills_core._catalog.loading import refresh_triggers
from skills_core._catalog.snapshot import CatalogSnapshot, ReloadReport
from skills_core._errors import SkillParseError
from skills_core._format.parsing import frontmatter_json
from skills_core._format.validation import is_plain_name
from skills_core._tool_table import skill_name_enum
from skills_core.context._budget import ListingPolicy, ShownOrder, visible_names
from skills_core.tools._content import ToolResult, as_text, guess_mime_type, is_error
from skills_core.tools._factory import LoadPolicy, SkillTools
from skills_core.tools._policy import ScriptPolicy

logger = logging.getLogger("skillfs.mcp")

DEFAULT_PAGE_SIZE = 100
"""Skills per ``skills/list`` page, and children per ``resources/directory/read`` page."""
DIRECTORY_MIME_TYPE = "inode/directory"
"""The MIME type of a directory resource."""
MAX_HANDSHAKE_SESSIONS = 256
"""Handshake-era connections told about changes; older ones are forgotten."""
SEND_TIMEOUT = 1.0
"""Seconds one handshake-era connection may take to accept a notification."""
_VERSION = installed_version()  # looked up once, at import: never on the event loop


class SkillServer:
    """Serves one catalog to MCP clients; refresh it (or call :meth:`refresh`) before serving.

    ``name`` is the ``serverInfo`` name; ``scripts``, ``listing`` (``search_skills`` offered
    unless its ``search`` is ``False``) and ``loading`` are the tools' (docs/mcp.md).
    """

    def __init__(
        self,
        catalog: SkillCatalog,
        *,
        scripts: ScriptPolicy | None = None,
        name: str = "skillfs",
        page_size: int = DEFAULT_PAGE_SIZE,
        listing: ListingPolicy | None = None,
        loading: LoadPolicy | None = None,
    ) -> None:
        self.catalog = catalog
        listing = listing or ListingPolicy()
        if listing.search is None:
            listing = replace(listing, search=True)
        self._tools = SkillTools(
            catalog,
            scripts=scripts,
            loading=loading,
            listing=listing,
            inline_files=True,
        )
        self._offered = {declaration.name: declaration for declaration in self._tools.offered()}
        self._manifests = Manifests(catalog)
        self._published: dict[str, Published] = {}
        self._listed: list[str] = []
        self._enum: list[str] | None = None  # the skill_name enum tools/list shows
        self._first_shown = ShownOrder()  # new skills join the skill_name enum at its end
        self.left_out: dict[str, str] = {}  # skills the extension cannot carry: the reason
        self._page_size = page_size
        self.changes = ListChanged()
        self._listen = ListenHandler(self.changes.bus)
        self.lowlevel: Server[Any] = _LiveServer(
            name,
            version=_VERSION,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_resource_templates,
            on_read_resource=self._read_resource,
            on_subscriptions_listen=self._listen,
        )
        self.lowlevel.add_request_handler(LIST_METHOD, ListSkillsParams, self._list_skills)
        self.lowlevel.add_request_handler(GET_METHOD, GetSkillParams, self._get_skill)
        self.lowlevel.add_request_handler(
            DIRECTORY_READ_METHOD, ReadDirectoryParams, self._read_directory
        )
        self.lowlevel.extensions[SKILLS_EXTENSION] = {"directoryRead": True}
        self.lowlevel.middleware.append(self.changes.remember_sessions)

    async def refresh(self) -> ReloadReport:
        """Refresh the catalog, republish, and notify clients when anything they see changed."""
        report = await self.catalog.refresh()
        await self.publish()
        return report

    async def publish(self) -> bool:
        """Rebuild the entries from the catalog as it is; notify and return True on a change."""
        published, left_out = await self._manifests.build()
        for name, reason in left_out.items():
            if self.left_out.get(name) != reason:
                logger.warning("skill %r is not offered by the skills extension: %s", name, reason)
        before = {uri: item.entry for uri, item in self._published.items()}
        self._published, self.left_out = published, left_out
        self._listed = sorted(published)
        resources = before != {uri: item.entry for uri, item in published.items()}
        enum = skill_name_enum(visible_names(self.catalog, self._first_shown))
        tools, self._enum = enum != self._enum, enum
        if not (resources or tools):
            return False
        await self.changes.publish(resources=resources, tools=tools)
        return True

    async def watch(self, *, interval: float = 2.0) -> None:
        """Refresh on every change the backend signals, or every ``interval`` s, until cancelled."""
        async with contextlib.aclosing(refresh_triggers(self.catalog.backend, interval)) as events:
            async for _ in events:
                await self.refresh()

    async def aclose(self) -> None:
        """End listen streams and delete script copies; the catalog stays open."""
        self._listen.close()
        self.changes.close()
        await self._tools.close()

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        names = visible_names(self.catalog, self._first_shown)
        tools = [
            types.Tool(
                name=declaration.name,
                description=declaration.description,
                input_schema=declaration.input_schema(names),
            )
            for declaration in self._offered.values()
        ]
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in self._offered:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {echoed(params.name)!r}")
        result, blob = _without_bytes(await self._tools.call(params.name, params.arguments or {}))
        text = types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))
        content: list[types.ContentBlock] = [text] if blob is None else [text, blob]
        return types.CallToolResult(
            content=content, structured_content=result, is_error=is_error(result)
        )

    async def _list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        items = [self._published[uri] for uri in self._listed]
        resources = [
            types.Resource(
                uri=item.entry["uri"],
                name=item.name,
                description=item.entry["frontmatter"]["description"],
                mime_type="text/markdown",
            )
            for item in items
        ]
        return types.ListResourcesResult(resources=resources)

    async def _list_resource_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def _read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = params.uri
        item = self._published.get(_skill_md_uri(uri))
        path = item.paths.get(uri) if item is not None else None
        if item is None or path is None:
            raise MCPError(
                types.INVALID_PARAMS, f"No skill file is served at {echoed(uri)}", {"uri": uri}
            )
        try:
            if uri == item.entry["uri"]:
                data = await self.catalog.read_skill_md(item.name)
            else:
                data = await self.catalog.read_resource(item.name, path, max_bytes=HOST_SKILL_BYTES)
        except (SkillNotFoundError, ResourceNotFoundError) as exc:
            message = f"{uri} is gone: {exc.message}"
            raise MCPError(types.INVALID_PARAMS, message, {"uri": uri}) from exc
        except StorageError as exc:
            raise MCPError(types.INTERNAL_ERROR, f"cannot read {uri}: {exc.message}") from exc
        mime_type = _mime_type(path)
        text = as_text(data)
        content: types.TextResourceContents | types.BlobResourceContents
        if text is not None:
            content = types.TextResourceContents(uri=uri, text=text, mime_type=mime_type)
        else:
            blob = base64.b64encode(data).decode("ascii")
            content = types.BlobResourceContents(uri=uri, blob=blob, mime_type=mime_type)
        return types.ReadResourceResult(contents=[content])

    async def _list_skills(
        self, ctx: ServerRequestContext[Any], params: ListSkillsParams
    ) -> dict[str, Any]:
        uris, next_cursor = self._page(self._listed, params.cursor)
        page = [self._published[uri].entry for uri in uris]
        result: dict[str, Any] = {"skills": page, "ttlMs": 0, "cacheScope": "private"}
        if self.left_out:
            left_out = sorted(self.left_out.items())
            result["_meta"] = {LEFT_OUT_META: [{"name": n, "reason": r} for n, r in left_out]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    async def _get_skill(
        self, ctx: ServerRequestContext[Any], params: GetSkillParams
    ) -> dict[str, Any]:
        item = self._published.get(params.uri)
        if item is None:
            raise MCPError(types.INVALID_PARAMS, f"No skill is served at {echoed(params.uri)}")
        return {"skill": item.entry, "ttlMs": 0, "cacheScope": "private"}

    async def _read_directory(
        self, ctx: ServerRequestContext[Any], params: ReadDirectoryParams
    ) -> ReadDirectoryResult:
        uri = params.uri
        item = self._published.get(_skill_md_uri(uri))
        children = _children(item, uri) if item is not None else {}
        if not children:
            raise MCPError(
                types.INVALID_PARAMS, f"{echoed(uri)} is not a directory resource", {"uri": uri}
            )
        listed, next_cursor = self._page(
            [children[name] for name in sorted(children)], params.cursor
        )
        return ReadDirectoryResult(resources=listed, next_cursor=next_cursor)

    def _page(self, items: list[Any], cursor: str | None) -> tuple[list[Any], str | None]:
        """The page of ``items`` that starts at ``cursor``, and the next page's cursor."""
        start, total = 0, len(items)
        if cursor is not None:
            # The length first: int() refuses 4,300 digits.
            digits = cursor.isascii() and cursor.isdigit() and len(cursor) <= len(str(total))
            if not digits or int(cursor) > total:
                raise MCPError(types.INVALID_PARAMS, f"Invalid cursor: {echoed(cursor)!r}")
            start = int(cursor)
        end = start + self._page_size
        return items[start:end], str(end) if end < total else None


class _LiveServer(Server[Any]):
    """Advertises resource and tool list changes to handshake-era clients on every transport."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        changed = NotificationOptions(resources_changed=True, tools_changed=True)
        options = notification_options or changed
        return super().create_initialization_options(options, experimental_capabilities, extensions)


def _skill_md_uri(uri: str) -> str:
    """The SKILL.md URI of the skill a ``skill://<name>/...`` URI points into."""
    scheme, _, rest = uri.partition("://")
    return f"{scheme}://{rest.partition('/')[0]}/{SKILL_MD}"


def _children(item: Published, uri: str) -> dict[str, types.Resource]:
    """The files and folders directly in the skill's folder at ``uri`` (empty: no folder)."""
    root = item.entry["uri"].removesuffix("/" + SKILL_MD)
    folder = unquote(uri.removeprefix(root).removeprefix("/"))
    prefix = f"{folder}/" if folder else ""
    children: dict[str, types.Resource] = {}
    for file_uri, path in item.paths.items():
        inside = unquote(file_uri.removeprefix(root + "/"))
        if not inside.startswith(prefix):
            continue
        name, below, _ = inside.removeprefix(prefix).partition("/")
        if below:
            child = resource_uri(root, prefix + name)
            children[name] = types.Resource(uri=child, name=name, mime_type=DIRECTORY_MIME_TYPE)
        else:
            children[name] = types.Resource(uri=file_uri, name=name, mime_type=_mime_type(path))
    return children


def _mime_type(path: str) -> str:
    return "text/markdown" if path.lower().endswith(".md") else guess_mime_type(path)


def _without_bytes(result: ToolResult) -> tuple[ToolResult, types.EmbeddedResource | None]:
    """A file's description without its base64, and those bytes as a blob resource."""
    if "content_base64" not in result:
        return result, None
    described = {key: value for key, value in result.items() if key != "content_base64"}
    described["note"] = "The file's bytes follow as an embedded blob resource."
    blob = types.BlobResourceContents(
        uri=resource_uri(skill_root(result["skill_name"]), result["file_path"]),
        mime_type=result["mime_type"],
        blob=result["content_base64"],
    )
    return described, types.EmbeddedResource(type="resource", resource=blob)


class ListChanged:
    """Fans one "the skills changed" out to every client that can hear it."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()  # for subscriptions/listen
        self._sessions: deque[ServerSession] = deque(maxlen=MAX_HANDSHAKE_SESSIONS)
        self._closed = False

    async def remember_sessions(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Server middleware: keep each handshake-era connection's session."""
        result = await call_next(ctx)
        if ctx.method == "initialize":
            self._sessions.append(ctx.session)
        return result

    async def publish(self, *, resources: bool = True, tools: bool = False) -> None:
        """Tell every client the resources (the skills) changed, and or the tools did."""
        if self._closed:
            return
        if resources:
            await self.bus.publish(ResourcesListChanged())
        if tools:
            await self.bus.publish(ToolsListChanged())
        sessions = list(self._sessions)
        told = await asyncio.gather(*(_tell(session, resources, tools) for session in sessions))
        for session, heard in zip(sessions, told, strict=True):
            if not heard and session in self._sessions:
                self._sessions.remove(session)

    def close(self) -> None:
        """Stop telling anyone."""
        self._closed = True
        self._sessions.clear()


async def _tell(session: ServerSession, resources: bool, tools: bool) -> bool:
    """Send the list-changed notifications; False when the connection did not take them."""
    try:
        async with asyncio.timeout(SEND_TIMEOUT):
            if resources:
                await session.send_resource_list_changed()
            if tools:
                await session.send_tool_list_changed()
    except TimeoutError:
        logger.info("a client took no notification for %s s: it is told nothing more", SEND_TIMEOUT)
        return False
    except Exception as exc:  # a closed connection: nothing more to tell it
        logger.debug("a client could not be told of a change: %r", exc)
        return False
    return True


_CONCURRENCY = 16

Entry = dict[str, Any]
"""A ``Skill`` entry as it goes on the wire."""

WARNINGS_META = "skillfs/warnings"
"""The ``_meta`` key of an entry's warnings: ``[{"code", "message"}]``, as the catalog gives
them (codes from :mod:`skills_core._codes`)."""

LEFT_OUT_META = "skillfs/leftOut"
"""The ``_meta`` key of a ``skills/list`` page naming every skill the extension leaves out:
``[{"name", "reason"}]`` (the plain tools still serve them)."""


class Published(NamedTuple):
    """One skill as published: its name, wire entry, and each file's storage path by URI."""

    name: str
    entry: Entry
    paths: Mapping[str, str]


class Manifests:
    """Builds the entries of a catalog's skills, reusing those whose files did not change.

    Digests and frontmatter come from the catalog: an unchanged source publishes without a GET.
    """

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog
        self._built: dict[str, tuple[CatalogEntry, tuple[FileEntry, ...], Published]] = {}

    async def build(self) -> tuple[dict[str, Published], dict[str, str]]:
        """Every publishable skill by its ``SKILL.md`` URI, and why each other one is not."""
        snapshot = self._catalog.snapshot
        names = [meta.name for meta in snapshot.skills]
        publish = partial(self._publish, snapshot=snapshot)
        results = await settled(publish, names, concurrency=_CONCURRENCY)
        published = {r.entry["uri"]: r for r in results if isinstance(r, Published)}
        left_out = {
            n: str(r) for n, r in zip(names, results, strict=True) if not isinstance(r, Published)
        }
        await self._catalog.save_file_digests()
        kept = {p.name for p in published.values()}
        self._built = {name: built for name, built in self._built.items() if name in kept}
        return published, left_out

    async def _publish(self, name: str, snapshot: CatalogSnapshot) -> Published | str:
        if not is_plain_name(name):
            return "its name breaks the extension's naming rules (lowercase letters, digits, '-')"
        entry = snapshot.loaded[name]
        files = await self._catalog.files(name)
        built = self._built.get(name)
        # Reused only while every file's fingerprint is as it was (none unknown).
        if built and built[0] is entry and built[1] == files and all(f.fingerprint for f in files):
            return built[2]
        frontmatter = self._frontmatter(name, entry)
        if isinstance(frontmatter, str):
            return frontmatter
        main = SKILL_MD if any(file.path == SKILL_MD for file in files) else "skill.md"
        others = [file for file in files if file.path != main]
        if len(others) + 1 > HOST_SKILL_FILES:
            return f"it has {len(others) + 1} files, over the extension's {HOST_SKILL_FILES}"
        digest, size = await self._skill_md(name, entry, files, main)
        total = size + sum(file.size for file in others)
        if total > HOST_SKILL_BYTES:
            return f"its files hold {total} bytes, over the extension's {HOST_SKILL_BYTES}"
        root = skill_root(name)
        uri = f"{root}/{SKILL_MD}"
        resources = [{"uri": uri, "digest": digest, "size": size}]
        paths = {uri: main}
        digests = await self._catalog.file_digests(name, others, max_bytes=HOST_SKILL_BYTES)
        for file, (file_digest, file_size) in zip(others, digests, strict=True):
            file_uri = resource_uri(root, file.path)
            resources.append({"uri": file_uri, "digest": file_digest, "size": file_size})
            paths[file_uri] = file.path
        wire = {"uri": uri, "frontmatter": frontmatter, "resources": resources}
        warnings = snapshot.advice.get(name, ())
        if warnings:
            notes = [{"code": problem.code, "message": problem.message} for problem in warnings]
            wire["_meta"] = {WARNINGS_META: notes}
        published = Published(name, wire, paths)
        self._built[name] = (entry, files, published)
        return published

    def _frontmatter(self, name: str, entry: CatalogEntry) -> dict[str, Any] | str:
        """The file's frontmatter as JSON, or why the extension cannot carry it identical."""
        try:
            frontmatter = frontmatter_json(
                frontmatter_of(entry), location=entry.location, limits=self._catalog.format_limits
            )
        except SkillParseError as exc:
            return f"its frontmatter has no JSON form identical to the file's: {exc.message}"
        identity = frontmatter.get("name"), frontmatter.get("description")
        if identity[0] != name or not isinstance(identity[1], str):
            return "YAML 1.2 reads its name and description as {!r} and {!r}".format(*identity)
        return frontmatter

    async def _skill_md(
        self, name: str, entry: CatalogEntry, files: tuple[FileEntry, ...], main: str
    ) -> tuple[str, int]:
        """The SKILL.md's digest and size: the catalog's, read only if its file changed since."""
        listed = next((file for file in files if file.path == main), None)
        if listed is not None and listed.fingerprint == entry.fingerprint:
            return self._catalog.skill_md_digest(name), listed.size
        raw = await self._catalog.read_skill_md(name)
        return digest_of(raw), len(raw)


def skill_root(name: str) -> str:
    """The root URI of the skill ``name``: its files are ``<root>/<path>``."""
    return f"skill://{name}"
