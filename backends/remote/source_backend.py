"""SourceBackend: a folder or bundle source served as a Backend, from its latest listing."""

from __future__ import annotations

from collections.abc import Sequence

from backends.base import FileEntry, SkillDocument, SkillRef
from backends.capabilities import FetchResult, export_state, import_state
from backends.errors import ResourceNotFoundError, SkillNotFoundError, StorageError
from backends.limits import DEFAULT_LIMITS, check_size
from backends.paths import check_resource_path, check_skill_name, is_skill_name
from backends.remote.layout import SkillFolder
from backends.remote.sources import SkillView, Source
from backends.remote.urls import join_location
from backends.resource import AsyncResource


class SourceBackend(AsyncResource):
    """The skills of one :class:`~backends.remote.sources.Source`, behind the Backend protocol.

    ``list()`` takes a new view of the source; ``files()`` and ``read()`` are served from the
    last one, listed again only when a name is not in it (the skill may be new).

    Args:
        source: The folder or bundle; closed with this backend.
        location: The source's URL (any password hidden), for messages.
    """

    def __init__(self, source: Source, *, location: str) -> None:
        self._source = source
        self._location = location
        self._view: SkillView | None = None

    @property
    def location(self) -> str:
        """The source's URL."""
        return self._location

    async def list(self) -> Sequence[SkillRef]:
        """List the source once and return every skill, refused ones with their reason."""
        return (await self._refresh()).layout.refs()

    async def get(self, name: str) -> SkillDocument:
        """Fetch one SKILL.md (listing first when the name is not known yet)."""
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
            results[index] = (
                data
                if isinstance(data, StorageError)
                else SkillDocument(
                    folder.name, data, folder.skill_md.fingerprint, folder.skill_md.location
                )
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

    def export_state(self) -> bytes | None:
        """The source's exported state (a bundle's listing), if it keeps one."""
        return export_state(self._source)

    def import_state(self, state: bytes) -> None:
        """Give the source a state another process exported."""
        import_state(self._source, state)

    async def aclose(self) -> None:
        """Close the source's connections and drop the last view."""
        self._view = None
        await self._source.aclose()

    async def skill_folders_elsewhere(self) -> Sequence[str]:
        """Folders of the last listing that hold a SKILL.md but are no skill here.

        Hidden folders (``.curated/pdf``), folders nested deeper (``skills/pdf``) and the
        root itself (``""``), relative to the root: where to point instead when the root
        holds no skills. Lists first when nothing was listed yet.
        """
        view = self._view or await self._refresh()
        return view.layout.elsewhere

    async def _refresh(self) -> SkillView:
        self._view = await self._source.snapshot()
        return self._view

    async def _view_knowing(self, names: Sequence[str]) -> SkillView:
        """The current view, listed again when a plain name is not in it (it may be new)."""
        view = self._view
        if view is None or any(self._unknown(view, name) for name in names):
            view = await self._refresh()
        return view

    @staticmethod
    def _unknown(view: SkillView, name: str) -> bool:
        return is_skill_name(name) and name not in view.layout.skills

    def _folder(self, view: SkillView, name: str) -> SkillFolder:
        check_skill_name(name)
        folder = view.layout.skills.get(name)
        if folder is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self._location)
        refusal = folder.refusal
        if refusal is not None:
            raise type(refusal)(refusal.message, location=refusal.location)
        return folder
