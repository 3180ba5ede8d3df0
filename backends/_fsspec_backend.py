"""The backends on fsspec storage: a folder of skills (or the index published in it), a bundle."""

from __future__ import annotations

import asyncio
import functools
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from backends._base import AsyncResource, FileEntry, SkillDocument, SkillRef
from backends._errors import (
    ResourceNotFoundError,
    SignatureError,
    SkillNotFoundError,
    StorageError,
    UnsupportedSourceError,
)
from backends._index.document import INDEX_PATH
from backends._index.reader import IndexBackend, StoreTransport
from backends._limits import DEFAULT_LIMITS, Limits, check_size
from backends._paths import check_resource_path, check_skill_name, is_skill_name
from backends._remote.bundles import BundleSource, DeferredView, ZipView
from backends._remote.failures import DEFAULT_TIMEOUT, Redactor, RetryPolicy
from backends._remote.filesystem import RemoteFS, Reopening
from backends._remote.layout import (
    Layout,
    SkillFolder,
    StoredFile,
    build_layout,
    listing_candidates,
)
from backends._remote.urls import join_location, parse_source
from backends.capabilities import FetchResult, IndexVerifier, fetch_many, settled


class StoreBackend(AsyncResource):
    """Skill folders on storage fsspec opens, served from the latest listing (:meth:`_list`).

    A name not in the last listing lists again. The storage opens on first use.

    Args:
        url: The folder or bundle.
        limits: The bundle limits.
        retry: How transient failures are retried (default: 4 attempts; none for GCS).
        timeout: Seconds per storage operation, retries included (see ``Deadline``); ``None``:
            only the store's own timeouts.
        max_concurrency: Most requests in flight at once.
        **storage_options: For the fsspec filesystem: credentials, ``endpoint_url``, …

    Raises:
        UnsupportedSourceError: No filesystem for the URL, or it names the other kind.
        MissingDependencyError: The filesystem's package is not installed.
    """

    def __init__(
        self,
        url: str,
        *,
        limits: Limits = DEFAULT_LIMITS,
        retry: RetryPolicy | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_concurrency: int = 16,
        **storage_options: Any,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self._spec = parse_source(url)
        redact = Redactor.for_source(url, storage_options)
        self._location = redact.url(url)
        self._target_location = redact.url(self._spec.target)
        if self._spec.bundle is not self._BUNDLES:
            raise UnsupportedSourceError(self._WRONG_KIND, location=self._location)
        self._remote = Reopening(
            self._spec,
            storage_options,
            redact=redact,
            location=self._location,
            retry=retry,
            timeout=timeout,
        )
        self._limits = limits
        self._max_concurrency = max_concurrency
        self._view: SkillView | None = None
        self._imported: bytes | None = None  # another process's state, for the first listing

    _BUNDLES: bool
    _WRONG_KIND: str  # why a URL of the other kind is refused

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._location!r})"

    @property
    def location(self) -> str:
        """The URL, with any password in it hidden."""
        return self._location

    @property
    def timeout(self) -> float | None:
        """Seconds one storage operation may take, retries included (``None``: no deadline)."""
        return self._remote.deadline.timeout

    async def list(self) -> Sequence[SkillRef]:
        """List the storage once: every skill, refused ones with their reason."""
        return (await self._refresh()).layout.refs()

    async def get(self, name: str) -> SkillDocument:
        """Fetch one SKILL.md."""
        (result,) = await self.get_many([name])
        if isinstance(result, StorageError):
            raise result
        return result

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Fetch several SKILL.md files concurrently, in order; failures are returned."""
        view = await self._view_knowing(names)
        results: dict[int, FetchResult] = {}
        wanted: list[tuple[int, SkillFolder]] = []
        for index, name in enumerate(names):
            try:
                wanted.append((index, self._folder(view, name)))
            except StorageError as exc:
                results[index] = exc
        fetched = await view.fetch([folder.skill_md for _, folder in wanted])
        for (index, folder), data in zip(wanted, fetched, strict=True):
            skill_md = folder.skill_md
            results[index] = (
                data
                if isinstance(data, StorageError)
                else SkillDocument(folder.name, data, skill_md.fingerprint, skill_md.location)
            )
        return [results[index] for index in range(len(names))]

    async def files(self, name: str) -> Sequence[FileEntry]:
        """A skill's visible files as of the last listing (no request once listed)."""
        check_skill_name(name)
        return self._folder(await self._view_knowing([name]), name).entries()

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Read one file of a skill as of the last listing, refusing oversize ones unread."""
        check_skill_name(name)
        relative = check_resource_path(path, location=join_location(self._location, name))
        view = await self._view_knowing([name])
        folder = self._folder(view, name)
        stored = folder.files.get(relative)
        if stored is None:
            skill_folder = folder.skill_md.location.rsplit("/", 1)[0]
            raise ResourceNotFoundError("no such file", location=f"{skill_folder}/{relative}")
        check_size(stored.size, max_bytes, location=stored.location)
        data = await view.read(stored)
        check_size(len(data), max_bytes, location=stored.location)
        return data

    async def skill_folders_elsewhere(self) -> Sequence[str]:
        """Folders (relative to the root, ``""`` for it) holding a SKILL.md that is no skill."""
        view = self._view or await self._refresh()
        return view.layout.elsewhere

    def import_state(self, state: bytes) -> None:
        """Keep another process's state for the first listing."""
        if self._remote.fs is None:
            self._imported = state

    async def aclose(self) -> None:
        """Close the storage's connections; a later call opens them again."""
        self._view = None
        self._closed()
        await self._remote.aclose()

    def _closed(self) -> None:
        """Drop what was read through the closed storage."""

    @abstractmethod
    async def _list(self, fs: RemoteFS) -> SkillView:
        """List the storage once."""

    async def _refresh(self) -> SkillView:
        self._view = await self._list(await self._remote.get())
        return self._view

    async def _view_knowing(self, names: Sequence[str]) -> SkillView:
        """The current view, listed again when a plain name is not in it (it may be new)."""
        view = self._view
        if view is None or any(
            is_skill_name(name) and name not in view.layout.skills for name in names
        ):
            view = await self._refresh()
        return view

    def _folder(self, view: SkillView, name: str) -> SkillFolder:
        check_skill_name(name)
        folder = view.layout.skills.get(name)
        if folder is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._location)
        refusal = folder.refusal
        if refusal is not None:
            raise type(refusal)(refusal.message, location=refusal.location)
        return folder


class FsspecBackend(StoreBackend):
    """A folder of skill folders on any fsspec storage, or the index published in it.

    The first listing decides which, once (docs/backends.md); options as for :class:`StoreBackend`.
    """

    _BUNDLES = False
    _WRONG_KIND = "a zip bundle: BundleBackend (which open_backend gives) reads it"

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._verifier: IndexVerifier | None = None
        self._index: IndexBackend | None = None
        self._kind: str | None = None  # "folder", "index", or "saved" (unconfirmed) once decided
        self._pending: _FolderView | None = None  # the listing that decided, for the next refresh
        self._deciding = asyncio.Lock()

    def require_signatures(self, verifier: IndexVerifier) -> None:
        """Serve only a published index ``verifier`` accepts, from the next listing on."""
        self._verifier = verifier
        if self._index is not None:
            self._index.require_signatures(verifier)

    async def list(self) -> Sequence[SkillRef]:
        """List the folder (or its index) once: every skill, refused ones with their reason."""
        index = await self._published()
        if index is None:
            return await super().list()
        try:
            refs = await index.list()
        except ResourceNotFoundError as exc:
            if self._kind == "index":
                raise self._kind_changed("its published index is gone") from exc
            if self._kind != "saved":
                raise
            await self.aclose()  # the index another process saw is gone: look at the folder
            return await self.list()
        self._kind = "index"
        return refs

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """As :meth:`StoreBackend.get_many`, through the index when there is one."""
        index = await self._published()
        return await (super().get_many(names) if index is None else fetch_many(index, names))

    async def files(self, name: str) -> Sequence[FileEntry]:
        """As :meth:`StoreBackend.files`, through the index when there is one."""
        index = await self._published()
        return await (super().files(name) if index is None else index.files(name))

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """As :meth:`StoreBackend.read`, through the index when there is one."""
        index = await self._published()
        if index is None:
            return await super().read(name, path, max_bytes=max_bytes)
        return await index.read(name, path, max_bytes=max_bytes)

    def export_state(self) -> bytes | None:
        """The published index's state (validator and bytes); ``None`` for a plain folder."""
        return None if self._index is None else self._index.export_state()

    async def skill_folders_elsewhere(self) -> Sequence[str]:
        if await self._published() is not None:
            return ()
        return await super().skill_folders_elsewhere()

    def _closed(self) -> None:
        self._index, self._kind, self._pending = None, None, None

    async def _published(self) -> IndexBackend | None:
        """The index to read through, or ``None`` for a folder; decided once."""
        async with self._deciding:
            if self._kind is None and self._index is None:
                fs = await self._remote.get()
                imported, self._imported = self._imported, None
                transport = await self._find_index(fs, imported)
                if transport is not None:
                    self._index = IndexBackend(
                        transport, limits=self._limits, verifier=self._verifier
                    )
                    if imported is not None:
                        self._index.import_state(imported)
            return self._index

    async def _find_index(self, fs: RemoteFS, imported: bytes | None) -> StoreTransport | None:
        location, path = self._target_location, fs.path.rstrip("/")
        if path.endswith(".json"):
            return StoreTransport.named(fs, location=location)
        if imported is not None and IndexBackend.recognises(imported):
            self._kind = "saved"  # the index's first listing confirms it (see list())
            return StoreTransport(fs, base=path, index=INDEX_PATH, location=location)
        if self._verifier is None:
            self._pending = await self._list_folder(fs)
            if not self._pending.holds_index:
                self._kind = "folder"
                return None
        limit = self._limits.max_index_bytes
        transport = await StoreTransport.found(fs, location=location, max_bytes=limit)
        if transport is not None:
            return transport
        if self._verifier is not None:
            raise SignatureError(
                f"refused: trusted keys are set, and the folder holds no published index "
                f"({INDEX_PATH})",
                location=location,
            )
        self._kind = "folder"
        return None

    async def _list(self, fs: RemoteFS) -> SkillView:
        view, self._pending = self._pending, None
        if view is None:
            view = await self._list_folder(fs)
            if view.holds_index:
                raise self._kind_changed("it now holds a published index")
        return view

    async def _list_folder(self, fs: RemoteFS) -> _FolderView:
        root = fs.path
        listing = await fs.find(root, location=self._target_location)
        base = self._target_location
        layout = await asyncio.to_thread(
            lambda: build_layout(listing_candidates(listing, root, base=base))
        )
        index_key = f"{root.rstrip('/')}/{INDEX_PATH}" if root.rstrip("/") else INDEX_PATH
        return _FolderView(fs, layout, self._max_concurrency, holds_index=index_key in listing)

    def _kind_changed(self, what: str) -> StorageError:
        was = "a published index" if self._kind == "index" else "a folder of skills"
        return StorageError(
            f"{what}: this backend reads it as {was}, as it was when first listed; "
            "open it again to read it as it is now",
            location=self._location,
        )


class BundleBackend(StoreBackend):
    """A zip bundle (a ``.zip`` path or URL, or ``zip://[folder]::<URL>``) of skill folders."""

    _BUNDLES = True
    _WRONG_KIND = (
        "not a zip bundle: name a .zip file or a zip://::<URL> chain (FsspecBackend serves folders)"
    )
    _bundle: BundleSource | None = None

    def export_state(self) -> bytes | None:
        return None if self._bundle is None else self._bundle.export_state()

    def _closed(self) -> None:
        self._bundle = None

    async def _list(self, fs: RemoteFS) -> SkillView:
        if self._bundle is None:
            self._bundle = BundleSource(
                fs,
                inner_root=self._spec.inner_root,
                limits=self._limits,
                location=self._target_location,
                concurrency=self._max_concurrency,
            )
            imported, self._imported = self._imported, None
            if imported:
                self._bundle.import_state(imported)
        return await self._bundle.snapshot()


class _FolderView:
    """A folder's listing; files are read from the live filesystem, one GET each."""

    def __init__(self, fs: RemoteFS, layout: Layout, concurrency: int, *, holds_index: bool):
        self._fs = fs
        self.layout = layout
        self._concurrency = concurrency
        self.holds_index = holds_index

    async def fetch(self, files: Sequence[StoredFile]) -> list[bytes | StorageError]:
        fetch = functools.partial(self.read, missing=SkillNotFoundError)
        return await settled(fetch, files, concurrency=self._concurrency)

    async def read(
        self, stored: StoredFile, missing: type[StorageError] = ResourceNotFoundError
    ) -> bytes:
        return await self._fs.cat(
            stored.key, location=stored.location, missing=missing, size=stored.expected_size
        )


SkillView = _FolderView | ZipView | DeferredView  # one listing, and its files as then
