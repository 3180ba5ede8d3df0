"""Where a bundle (a named file) or a publication (a folder) may go: never inside its source.

``skillfs bundle SRC -o SRC/some-skill/SKILL.md`` used to replace a source file with the zip.
Paths are compared after resolving symlinks (the output's folder, then its name: what a write
would replace); URLs are compared as text, on the same storage.
"""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

from backends.errors import UnsafePathError, UnsupportedSourceError
from backends.remote.urls import check_names_something, last_link, protocol_of


def check_output(out: str, source: str, *, folder: bool = False) -> None:
    """Refuse an output that names nothing, is a folder, or lies inside ``source`` (blocking).

    Args:
        out: The path or URL the bundle would be written to.
        source: The location of the skills it packs (a backend's ``location``).
        folder: ``out`` is the folder of a publication, not a bundle's file.

    Raises:
        UnsupportedSourceError: ``out`` is empty, names no bucket or repository, or is a
            folder (a file, for a publication).
        UnsafePathError: ``out`` is ``source`` or inside it.
    """
    if not out.strip():
        example = "-o site" if folder else "-o skills.zip"
        what = "folder or bucket to publish to" if folder else "zip to write"
        raise UnsupportedSourceError(f"the output is empty: name the {what}, e.g. {example}")
    check_names_something(out)
    out_path, source_path = _local_path(out), _local_path(source)
    if out_path is not None and folder and os.path.isfile(out_path):
        raise UnsupportedSourceError(
            "the output is a file: name the folder to publish to", location=out
        )
    if out_path is not None and not folder and os.path.isdir(out_path):
        example = os.path.join(out, "skills.zip")
        raise UnsupportedSourceError(
            f"the output is a folder: name the zip to write, e.g. {example}", location=out
        )
    if out_path is not None and source_path is not None:
        inside = _within(_as_written(out_path), os.path.realpath(source_path))
    elif out_path is None and source_path is None:
        inside = _url_within(out, source)
    else:
        inside = False
    if inside:
        what = "publication" if folder else "bundle"
        raise UnsafePathError(
            f"the {what} would be written inside its source {source}: write it elsewhere",
            location=out,
        )


def _local_path(url: str) -> str | None:
    """The local path ``url`` names, or ``None`` for other storage."""
    if protocol_of(url) != "file" or "::" in url:
        return None
    return unquote(urlsplit(url).path) if url.startswith("file:") else url


def _as_written(path: str) -> str:
    """The path a write replaces: its folder resolved, its own name kept (a link is replaced)."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(os.path.realpath(folder), name)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _url_within(out: str, source: str) -> bool:
    target, root = last_link(out).rstrip("/"), last_link(source).rstrip("/")
    if root.endswith(":") or protocol_of(target) != protocol_of(root):
        return False  # a store's whole root (memory://) or another store
    return target == root or target.startswith(f"{root}/")
