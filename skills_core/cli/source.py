"""Where a command's skills come from: a URL, one skill folder, or the bundled examples."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from pathlib import Path

from backends.base import Backend, FileEntry, SkillDocument, SkillRef
from backends.index.document import INDEX_PATH
from backends.limits import DEFAULT_LIMITS
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


def open_source(url: str | None) -> Backend:
    """Open ``url`` for a one-shot command.

    A local folder that holds a SKILL.md (or the path of that SKILL.md) is one skill: the
    command sees that skill alone; one that holds a published index (``skillfs publish``) is
    read through it. Checks the filesystem, so call it outside the event loop.
    """
    backend = open_root(url)
    if not isinstance(backend, LocalBackend):
        return backend
    folder = backend.root
    if _is_file(folder / INDEX_PATH):
        from backends.remote import FsspecBackend

        return FsspecBackend(folder.absolute().as_uri())
    if folder.name in SKILL_MD_NAMES and _is_file(folder):
        folder = folder.parent
    if not (folder.name and any(_is_file(folder / name) for name in SKILL_MD_NAMES)):
        return backend  # a folder of skills (an unreadable one fails its listing, with a reason)
    return OneSkill(LocalBackend(folder.parent), folder.name, location=str(folder))


def _is_file(path: Path) -> bool:
    """True for a regular file; False for anything else, unreadable paths included."""
    try:
        return path.is_file()
    except OSError:
        return False


async def load_catalog(source: Backend, *, strict: bool = False) -> SkillCatalog:
    """A catalog of ``source`` after one refresh.

    Raises:
        SkillfsError: The source could not be listed (the listing's own error, in one line).
    """
    catalog = SkillCatalog(source, strict=strict)
    (await catalog.refresh()).raise_for_failure()
    return catalog


class OneSkill:
    """A local folder's one skill, as a backend: the listing holds that skill alone.

    Args:
        backend: The folder holding the skill folder.
        name: The skill's folder name.
        location: The location to report: the skill folder as the user named it.
    """

    def __init__(self, backend: LocalBackend, name: str, *, location: str) -> None:
        self._backend = backend
        self._name = name
        self._location = location

    @property
    def location(self) -> str:
        """The skill folder, as the user named it."""
        return self._location

    async def list(self) -> Sequence[SkillRef]:
        """The backend's listing narrowed to the one skill."""
        return [ref for ref in await self._backend.list() if ref.name == self._name]

    async def get(self, name: str) -> SkillDocument:
        """Delegate to the backend."""
        return await self._backend.get(name)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """Delegate to the backend."""
        return await self._backend.files(name)

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_resource_bytes
    ) -> bytes:
        """Delegate to the backend."""
        return await self._backend.read(name, path, max_bytes=max_bytes)

    async def aclose(self) -> None:
        """Delegate to the backend."""
        await self._backend.aclose()

    async def local_folder(self, name: str) -> str | None:
        """Delegate to the backend: the skill runs its scripts in place."""
        return await self._backend.local_folder(name)
