"""Where a command's skills come from: a URL, one skill folder, or the bundled examples."""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.base import Backend
from backends.errors import SkillfsError, SkillNotFoundError, UnsupportedSourceError
from backends.index.document import INDEX_PATH
from backends.index.redirects import WEB
from backends.local import LocalBackend
from backends.one_skill import open_skill_folder
from backends.opener import open_backend
from backends.remote.urls import protocol_of
from backends.schemes import backend_factory
from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.loading import Progress
from skills_core.cli import running
from skills_core.cli.arguments import SOURCE_RULE
from skills_core.trust.policy import TrustPolicy

if TYPE_CHECKING:
    from skills_core.trust.signing import TrustedKey

EXAMPLES = Path(__file__).parent.parent / "examples"
"""The example skills shipped inside the package, used when a command gets no URL."""

# The catalog logs a failed listing with its traceback; commands report it as one line instead.
logging.getLogger("skillfs").addHandler(logging.NullHandler())


def add_url_argument(
    parser: argparse.ArgumentParser, *, skill_folder: bool = True, several: bool = False
) -> None:
    """Add the optional ``URL`` positional every reading command takes, first, and its rule.

    ``several``: any number of URLs. The rule (:data:`~skills_core.cli.arguments.SOURCE_RULE`)
    ends the command's ``--help``.
    """
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
    """Complete a URL: local paths, while no positional was given (else NAME or QUERY is next).

    An argcomplete completer: with ``show URL NAME``, argparse gives a lone word to NAME, and
    the URL slot stays open although the source was given.
    """
    if any(getattr(parsed_args, dest, None) is not None for dest in ("url", "name", "query")):
        return []
    from argcomplete.completers import FilesCompleter

    return list(FilesCompleter()(prefix))


def open_root(url: str | None) -> Backend:
    """The backend for ``url``, or for the bundled examples when it is ``None``.

    Raises:
        UnsupportedSourceError: No backend serves that URL.
        MissingDependencyError: The URL needs an optional extra.
    """
    return open_backend(EXAMPLES if url is None else url)


@contextmanager
def reading_name(name: str | None, command: str) -> Iterator[None]:
    """Say so when a NAME the source does not serve names a source (:func:`source_hint`).

    Raises:
        SkillNotFoundError: Raised inside, with the hint added.
    """
    try:
        yield
    except SkillNotFoundError as exc:
        hint = "" if name is None else source_hint(name, command)
        if not hint:
            raise
        raise SkillNotFoundError(exc.message + hint, location=exc.location) from None


def source_hint(argument: str, command: str, then: str = "NAME") -> str:
    """What to add when ``argument``, read as a NAME (or QUERY), names a source instead.

    ``"; 'skills' is a folder: a source comes first, as in 'skillfs show skills NAME'"`` when
    ``argument`` is a local folder or file, or holds ``://``; else ``""``. Checks the
    filesystem: call it outside the event loop.
    """
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
    """Complete a NAME: the skills of the source given before it, else of the bundled examples.

    An argcomplete completer (set as the NAME argument's ``completer``). With one word before
    the cursor, argparse gives it to NAME: then that word is the source, and NAME is being
    typed. Nothing is offered when the source cannot be read.
    """
    url = parsed_args.url if parsed_args.url is not None else getattr(parsed_args, "name", None)
    try:
        catalog = running.run(load_catalog(open_source(url), cache=True))
    except (SkillfsError, OSError):
        return []
    return [meta.name for meta in catalog.list() if meta.name.startswith(prefix)]


def add_trust_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--trust KEY`` (repeatable): serve only an index signed by one of these keys."""
    parser.add_argument(
        "--trust",
        action="append",
        metavar="KEY",
        type=Path,
        help="serve only a published index signed by the Ed25519 public key in the file KEY "
        "('skillfs keygen' writes KEYFILE.pub); repeat it to trust two keys during a rotation",
    )


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


def open_trusted(url: str | None) -> Backend:
    """The published index at ``url``, for a catalog that trusts keys (``--trust``).

    Raises:
        UnsupportedSourceError: The source is no published index (nor a folder or bucket
            that may hold one).
    """
    from backends.fsspec_backend import FsspecBackend
    from backends.index.http import HttpIndexBackend

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
    from skills_core.trust.signing import public_key, read_key_file

    return [public_key(read_key_file(path), location=str(path)) for path in files]


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
    source: Backend,
    *,
    strict: bool = False,
    cache: bool,
    lock: str | None = None,
    keys: Sequence[TrustedKey] = (),
    progress: Progress | None = None,
) -> SkillCatalog:
    """A catalog of ``source`` after one refresh, through the catalog cache if ``cache``.

    It trusts the ``lock`` file and the ``keys`` (a signed index's sequences are remembered
    in the catalog cache, or only while the command runs without it). ``progress`` hears how
    many SKILL.md files the refresh read.

    Raises:
        SkillfsError: The source (or the ``lock`` file) could not be read (in one line).
    """
    trust = TrustPolicy(lock=lock, keys=keys)
    catalog = SkillCatalog(source, strict=strict, cache=cache, trust=trust)
    (await catalog.refresh(progress=progress)).raise_for_failure()
    return catalog
