"""Where a command's skills come from: a URL, one skill folder, or the bundled examples."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from backends.base import Backend
from backends.index.document import INDEX_PATH
from backends.local import LocalBackend
from backends.one_skill import open_skill_folder
from backends.opener import open_backend
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
    if os.path.isfile(folder / INDEX_PATH):
        from backends.fsspec_backend import FsspecBackend

        return FsspecBackend(folder.absolute().as_uri())
    # Else a folder of skills (an unreadable one fails its listing, with a reason).
    return open_skill_folder(folder) or backend


def add_cache_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--no-cache``: the command neither reads nor writes the catalog cache."""
    parser.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        help="read every SKILL.md, without the catalog cache ('skillfs cache info')",
    )


def add_lock_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--lock FILE``: serve only the skills a lock file names, as locked."""
    parser.add_argument(
        "--lock",
        metavar="FILE",
        help="serve only the skills FILE locks, each only while its files match ('skillfs lock')",
    )


async def load_catalog(
    source: Backend, *, strict: bool = False, cache: bool, lock: str | None = None
) -> SkillCatalog:
    """A catalog of ``source`` after one refresh, through the catalog cache if ``cache``.

    Raises:
        SkillfsError: The source (or the ``lock`` file) could not be read (in one line).
    """
    catalog = SkillCatalog(source, strict=strict, cache=cache, lock=lock)
    (await catalog.refresh()).raise_for_failure()
    return catalog
