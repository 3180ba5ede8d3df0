"""A command's source: the backend a URL opens, its catalog, and where skills are if not there.

Commands run their coroutines with :func:`run`, whose blocking calls run in daemon threads, so
Ctrl-C never waits for a call blocked on the network.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from backends._base import Backend
from backends._errors import SkillfsError, SkillNotFoundError, StorageError, UnsupportedSourceError
from backends._index.document import INDEX_PATH
from backends._local import LocalBackend, open_skill_folder
from backends._opener import backend_factory, open_backend
from backends._paths import skill_md_name
from backends._remote.urls import WEB, protocol_of
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.loading import Progress
from skills_core._trust.policy import TrustPolicy
from skills_core.cli._app import SOURCE_RULE, characters, positive_seconds
from skills_core.cli._output import plural, print_message, print_problems

if TYPE_CHECKING:
    from skills_core._trust.signing import TrustedKey

T = TypeVar("T")

EXAMPLES = Path(__file__).parent.parent / "examples"
"""The example skills shipped in the package, read when a command gets no URL."""

# The catalog logs a failed listing with its traceback; commands report it as one line instead.
logging.getLogger("skillfs").addHandler(logging.NullHandler())


def add_url_argument(
    parser: argparse.ArgumentParser, *, skill_folder: bool = True, several: bool = False
) -> None:
    """Add the optional ``URL`` positional, first (``several``: any number); its rule ends help."""
    what = "a skills folder (or one skill's folder)" if skill_folder else "a skills folder"
    merged = "; several merge, the first winning a name clash" if several else ""
    action = parser.add_argument(
        "url",
        nargs="*" if several else "?",
        metavar="URL",
        help=f"{what}, file:// or memory: URL, or any URL open_backend accepts "
        f"(default: the bundled example skills){merged}",
    )
    action.completer = source_paths  # type: ignore[attr-defined]  # what argcomplete reads
    parser.epilog = SOURCE_RULE


def source_paths(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    """Complete a URL: local paths, while no positional was given (else NAME or QUERY is next)."""
    if any(getattr(parsed_args, dest, None) is not None for dest in ("url", "name", "query")):
        return []
    from argcomplete.completers import FilesCompleter

    return list(FilesCompleter()(prefix))


def open_root(url: str | None) -> Backend:
    """The backend for ``url``, or for the bundled examples when it is ``None``."""
    return open_backend(EXAMPLES if url is None else url)


@contextmanager
def reading_name(name: str | None, command: str) -> Iterator[None]:
    """Add :func:`source_hint` to a :class:`SkillNotFoundError` for a NAME that names a source."""
    try:
        yield
    except SkillNotFoundError as exc:
        hint = "" if name is None else source_hint(name, command)
        if not hint:
            raise
        raise SkillNotFoundError(exc.message + hint, location=exc.location) from None


def source_hint(argument: str, command: str, then: str = "NAME") -> str:
    """What to add when ``argument``, read as a NAME or QUERY, is a local folder, file or URL."""
    if os.path.isdir(argument):
        what = "a folder"
    elif os.path.exists(argument):
        what = "a file"
    elif "://" in argument:
        what = "a URL"
    else:
        return ""
    example = f"skillfs {command} {argument} {then}"
    return f"; {argument!r} is {what}: a source comes first, as in {example!r}"


def add_name_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """Add the ``NAME`` positional that follows ``URL``, completed with the source's skills."""
    action = parser.add_argument("name", metavar="NAME", help=what)
    action.completer = skill_names  # type: ignore[attr-defined]  # what argcomplete reads


def skill_names(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    """Complete a NAME: the skills of the source before it (a lone word), else of the examples."""
    url = parsed_args.url if parsed_args.url is not None else getattr(parsed_args, "name", None)
    try:
        catalog = run(load_catalog(open_source(url), cache=True))
    except (SkillfsError, OSError):
        return []
    return [meta.name for meta in catalog.list() if meta.name.startswith(prefix)]


FLAGS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "trust": (
        ("--trust",),
        {
            "action": "append",
            "metavar": "KEY",
            "type": Path,
            "help": "serve only a published index signed by the Ed25519 public key in the file "
            "KEY ('skillfs keygen' writes KEYFILE.pub); repeat it to trust two keys during a "
            "rotation",
        },
    ),
    "cache": (
        ("--no-cache",),
        {
            "dest": "cache",
            "action": "store_false",
            "help": "read every SKILL.md, without the catalog cache ('skillfs cache info')",
        },
    ),
    "lock": (
        ("--lock",),
        {
            "metavar": "FILE",
            "help": "serve only the skills FILE locks, each only while its files match "
            "('skillfs lock')",
        },
    ),
    "json": (
        ("--json",),
        {"action": "store_true", "help": "print JSON for scripts instead of text"},
    ),
    "quiet": (
        ("-q", "--quiet"),
        {"action": "store_true", "help": "draw no progress bar on a terminal"},
    ),
    "budget": (
        ("--budget",),
        {
            "type": characters,
            "metavar": "CHARS",
            "help": "fit the skill listing in CHARS characters: shorter descriptions, then one "
            "line per skill, then names only, then a count pointing to search_skills, each "
            "with a note saying so (default: no limit)",
        },
    ),
    "search": (
        ("--no-search-tool",),
        {
            "action": "store_true",
            "help": "the model has no search_skills tool (serve offers none): the listing never "
            "leaves a name out",
        },
    ),
    "interval": (
        ("--interval",),
        {
            "type": positive_seconds,
            "default": 2.0,
            "metavar": "S",
            "help": "seconds between polls of sources without change events (default: 2)",
        },
    ),
}
"""The options several commands take, by the name :func:`add_flags` is given."""


def add_flags(parser: argparse.ArgumentParser, *names: str) -> None:
    """Add the :data:`FLAGS` called ``names``, in that order."""
    for name in names:
        flags, options = FLAGS[name]
        parser.add_argument(*flags, **options)


def open_source(url: str | None) -> Backend:
    """Open ``url`` for a one-shot command (blocking): one skill's folder, or a published index."""
    backend = open_root(url)
    if not isinstance(backend, LocalBackend):
        return backend
    folder = backend.root
    if os.path.isfile(folder / INDEX_PATH):
        from backends._fsspec_backend import FsspecBackend

        return FsspecBackend(folder.absolute().as_uri())
    # Else a folder of skills (an unreadable one fails its listing, with a reason).
    return open_skill_folder(folder) or backend


def open_trusted(url: str | None) -> Backend:
    """The published index at ``url``, for a catalog that trusts keys (``--trust``).

    Raises:
        UnsupportedSourceError: The source is no published index (nor a folder or bucket
            that may hold one).
    """
    from backends._fsspec_backend import FsspecBackend
    from backends._index.http import HttpIndexBackend

    scheme = None if url is None else "memory" if url.startswith("memory:") else protocol_of(url)
    if scheme in WEB:
        return HttpIndexBackend(str(url))
    if url is None or (scheme != "file" and backend_factory(str(scheme)) is not None):
        raise UnsupportedSourceError(
            "--trust verifies a published index (an http(s) site, or a folder or bucket "
            "holding one): this source is not one",
            location=url or str(EXAMPLES),
        )
    if scheme == "file" and "::" not in url:
        url = Path(url.removeprefix("file://")).absolute().as_uri()
    return FsspecBackend(url)


def trusted_keys(files: Sequence[Path]) -> list[TrustedKey]:
    """The public keys in the key files ``--trust`` names.

    Raises:
        StorageError: A key file cannot be read.
        SignatureError: A key file holds no Ed25519 public key.
    """
    from skills_core._trust.signing import public_key, read_key_file

    return [public_key(read_key_file(path), location=str(path)) for path in files]


async def load_catalog(
    source: Backend,
    *,
    strict: bool = False,
    cache: bool,
    lock: str | None = None,
    keys: Sequence[TrustedKey] = (),
    progress: Progress | None = None,
) -> SkillCatalog:
    """A catalog of ``source`` after one refresh (``progress`` hears the SKILL.md files read).

    It trusts the ``lock`` file and the ``keys`` (a signed index's sequences are remembered in
    the catalog cache, or only while the command runs without it).

    Raises:
        SkillfsError: The source (or the ``lock`` file) could not be read.
    """
    trust = TrustPolicy(lock=lock, keys=keys)
    catalog = SkillCatalog(source, strict=strict, cache=cache, trust=trust)
    (await catalog.refresh(progress=progress)).raise_for_failure()
    return catalog


def report_catalog(catalog: SkillCatalog) -> bool:
    """Print every problem of ``catalog`` to stderr, then :func:`report_empty`."""
    print_problems(catalog.errors, catalog.warnings)
    return report_empty(catalog)


def report_empty(catalog: SkillCatalog) -> bool:
    """Say on stderr when ``catalog`` found no skill; True (an error) when skills sit elsewhere."""
    if catalog.snapshot.entries:
        return False
    location = catalog.backend.location
    folders = run(skill_folders_elsewhere(catalog.backend))
    if folders:
        print_message("error", location, f"no skills found; {elsewhere_hint(location, folders)}")
        return True
    print_message("warning", location, "no skills found")
    return False


MAX_DEPTH = 4
"""Folder levels below a local root searched for SKILL.md files."""

MAX_FOLDERS = 10_000
"""Most local folders looked at: a search never walks a whole disk."""

SHOWN = 5

_NEVER_SEARCHED = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})


async def skill_folders_elsewhere(backend: Backend) -> Sequence[str]:
    """Folders of ``backend`` (relative to its root) holding a SKILL.md that is no skill there."""
    if isinstance(backend, LocalBackend):
        return await asyncio.to_thread(search_folder, backend.root)
    finder = getattr(backend, "skill_folders_elsewhere", None)  # a store's backend
    try:
        folders: Sequence[str] = await finder() if finder is not None else ()
    except StorageError:
        return ()
    return folders


def search_folder(root: Path) -> list[str]:
    """Folders below ``root`` holding a SKILL.md, hidden ones included (blocking, breadth first).

    No symlink, VCS, dependency or cache folder is entered.
    """
    found: list[str] = []
    level = [(root, "")]
    visited = 0
    for _ in range(MAX_DEPTH):
        below: list[tuple[Path, str]] = []
        for folder, relative in level:
            visited += 1
            if visited > MAX_FOLDERS:
                return sorted(found)
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            names = {entry.name for entry in entries}
            if relative and skill_md_name(names):
                found.append(relative)
            below += [
                (Path(entry.path), f"{relative}/{entry.name}".lstrip("/"))
                for entry in entries
                if entry.name not in _NEVER_SEARCHED and entry.is_dir(follow_symlinks=False)
            ]
        level = below
    return sorted(found)


def elsewhere_hint(location: str, folders: Sequence[str]) -> str:
    """One sentence naming where the skills are, grouped by the folder that holds them."""
    if "" in folders:
        return "this folder is a skill itself: point at the folder that holds it"
    places = Counter(folder.rpartition("/")[0] or folder for folder in folders)
    base = location.rstrip("/")
    shown = [
        f"{base}/{place} ({plural(count, 'skill')})"
        for place, count in sorted(places.items())[:SHOWN]
    ]
    more = len(places) - SHOWN
    if more > 0:
        shown.append(f"and {more} more")
    return (
        "SKILL.md files sit in hidden or nested folders, which are not searched: "
        f"{', '.join(shown)}; point skillfs at one of them"
    )


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, with worker threads that never delay the end of the command."""
    with asyncio.Runner() as runner:
        runner.get_loop().set_default_executor(DaemonThreads())
        return runner.run(main)


class DaemonThreads(ThreadPoolExecutor):  # asyncio takes no other kind of default executor
    """Runs each call in a new daemon thread; ``shutdown`` has nothing to wait for."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in a daemon thread."""
        future: Future[T] = Future()

        def work() -> None:
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # delivered to the caller, as ThreadPoolExecutor does
                    future.set_exception(exc)

        threading.Thread(target=work, name="skillfs-worker", daemon=True).start()
        return future
