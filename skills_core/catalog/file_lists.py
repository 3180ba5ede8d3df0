"""Each skill's file list as of the last refresh: listed once, then served from memory.

``SkillCatalog.get()`` returns a skill with its files. Listing them costs a walk of the skill's
folder on a local disk (one thread hop, about 200 us) and nothing but a lookup on remote
backends, which answer from their last listing. Either way the list is kept until the next
successful refresh, so a warm ``get()`` is a dictionary lookup.

The trade-off, for local folders: a resource added, removed or edited in place shows in
``get()`` after the next refresh (``watch()`` refreshes on any change below the root), exactly
as an edited SKILL.md does; ``read_resource()`` always reads the file as it is now.
"""

from __future__ import annotations

from backends.base import Backend, FileEntry


class FileLists:
    """The file lists a catalog has asked its backend for since its last refresh."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._lists: dict[str, tuple[FileEntry, ...]] = {}
        self._generation = 0

    async def of(self, folder: str) -> tuple[FileEntry, ...]:
        """The files of the skill in ``folder``, listed by the backend once per refresh."""
        files = self._lists.get(folder)
        if files is None:
            generation = self._generation
            files = tuple(await self._backend.files(folder))
            if generation == self._generation:  # no refresh since the listing began
                self._lists[folder] = files
        return files

    def forget(self) -> None:
        """Drop every list: the skills were listed again."""
        self._generation += 1
        self._lists.clear()
