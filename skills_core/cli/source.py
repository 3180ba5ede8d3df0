"""Where a command's skills come from: a URL, one skill folder, or the bundled examples."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path

from backends.base import (
    Backend,
    DocumentLister,
    FetchResult,
    FileEntry,
    ListedDocument,
    SkillDocument,
    SkillRef,
)
from backends.local import LocalBackend
from backends.opener import open_backend
from backends.paths import SKILL_MD_NAMES
from skills_core.catalog.catalog import SkillCatalog

EXAMPLES = Path(__file__).parent.parent / "examples"
"""The example skills shipped inside the package, used when a command gets no URL."""

# The catalog logs a failed listing with its traceback; commands report it as one line instead.
logging.getLogger("skillfs").addHandler(logging.NullHandler())


def add_url_argument(parser: argparse.ArgumentParser, *, skill_folder: bool = True) -> None:
    """Add the optional ``URL`` positional every reading command takes."""
    what = "a skills folder (or one skill's folder)" if skill_folder else "a skills folder"
    parser.add_argument(
        "url",
        nargs="?",
        metavar="URL",
        help=f"{what}, file:// or memory: URL, or any URL open_backend accepts "
        "(default: the bundled example skills)",
    )


def open_root(url: str | None) -> Backend:
    """The backend for ``url``, or for the bundled examples when it is ``None``.

    Raises:
        UnsupportedSourceError: No backend serves that URL.
        MissingDependencyError: The URL needs an optional extra.
    """
    return open_backend(EXAMPLES if url is None else url)


def open_source(url: str | None) -> CommandSource:
    """Open ``url`` for a one-shot command.

    A local folder that holds a SKILL.md (or the path of that SKILL.md) is one skill: the
    command sees that skill alone. Checks the filesystem, so call it outside the event loop.
    """
    backend = open_root(url)
    if not isinstance(backend, LocalBackend):
        return CommandSource(backend)
    folder = backend.root
    if folder.name in SKILL_MD_NAMES and folder.is_file():
        folder = folder.parent
    if not (folder.name and any((folder / name).is_file() for name in SKILL_MD_NAMES)):
        return CommandSource(backend)
    return CommandSource(LocalBackend(folder.parent), only=folder.name, location=str(folder))


async def load_catalog(source: CommandSource, *, strict: bool = False) -> SkillCatalog:
    """A catalog of ``source`` after one refresh.

    Raises:
        SkillfsError: The source could not be listed (the listing's own error, in one line).
    """
    catalog = SkillCatalog(source, strict=strict)
    (await catalog.refresh()).raise_for_failure()
    return catalog


class CommandSource:
    """A backend as a one-shot command reads it.

    It can narrow the listing to one skill.

    Args:
        backend: The backend to read.
        only: Serve only the skill of this name.
        location: The location to report, when not the backend's own.
    """

    def __init__(
        self, backend: Backend, *, only: str | None = None, location: str | None = None
    ) -> None:
        self._backend = backend
        self._only = only
        self._location = location or backend.location

    @property
    def location(self) -> str:
        """Where the skills are, as the user named them."""
        return self._location

    async def list(self) -> Sequence[SkillRef]:
        """List the backend, or just the one skill."""
        refs = await self._backend.list()
        return refs if self._only is None else [ref for ref in refs if ref.name == self._only]

    async def list_documents(self, *, max_bytes: int) -> Sequence[ListedDocument] | None:
        """Read the whole listing in one pass when the backend can and no skill is singled out."""
        if self._only is not None or not isinstance(self._backend, DocumentLister):
            return None
        return await self._backend.list_documents(max_bytes=max_bytes)

    async def get(self, name: str) -> SkillDocument:
        """Delegate to the backend."""
        return await self._backend.get(name)

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        """Delegate to the backend."""
        return await self._backend.get_many(names)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """Delegate to the backend."""
        return await self._backend.files(name)

    async def read(self, name: str, path: str, *, max_bytes: int) -> bytes:
        """Delegate to the backend."""
        return await self._backend.read(name, path, max_bytes=max_bytes)
