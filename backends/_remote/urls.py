"""What a source URL names: a folder of skills, or a zip bundle, and on which storage.

Pure string work, no I/O: a ``.zip`` path (local or remote) is a bundle, and so is fsspec's
chained form ``zip://[folder]::<archive URL>``, whose optional folder is the skills root inside
the archive.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from backends._errors import UnsupportedSourceError

WEB = ("http", "https")
"""The protocols of the web."""

_ZIP_PREFIX = "zip://"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_GITHUB_REPOSITORY = re.compile(r"^[^:/@]+:[^:/@]+(@[^/]+)?$")
_CONTAINERS = {
    "s3": ("bucket", "s3://BUCKET[/folder]"),
    "s3a": ("bucket", "s3a://BUCKET[/folder]"),
    "gs": ("bucket", "gs://BUCKET[/folder]"),
    "gcs": ("bucket", "gcs://BUCKET[/folder]"),
    "http": ("host", "http://HOST (its skills index) or http://HOST/skills.zip"),
    "https": ("host", "https://HOST (its skills index) or https://HOST/skills.zip"),
}
"""Protocols whose URL must start with a container, and how a complete one looks."""


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A parsed source URL.

    Attributes:
        target: The URL fsspec opens: the skills folder, or the archive of a bundle.
        bundle: True when ``target`` is a zip archive.
        inner_root: The skills folder inside the archive; ``None`` to detect it (the archive
            root, or its single top folder).
    """

    target: str
    bundle: bool
    inner_root: str | None = None

    @property
    def protocol(self) -> str:
        """The storage protocol of the target's innermost link (``file`` for paths)."""
        return protocol_of(last_link(self.target))

    @property
    def protocols(self) -> tuple[str, ...]:
        """The protocol of every link of a chained target, outermost first."""
        return tuple(protocol_of(link) for link in self.target.split("::"))


def parse_source(url: str) -> SourceSpec:
    """Split ``url`` into what to open and how to read it.

    Raises:
        UnsupportedSourceError: The URL names nothing (see :func:`check_names_something`),
            or a ``zip://`` URL has no archive after ``::``.
    """
    check_names_something(url)
    if url.startswith((_ZIP_PREFIX, "zip::")):
        head, separator, target = url.partition("::")
        if not separator or not target:
            raise UnsupportedSourceError(
                "a zip:// URL names its archive after '::', e.g. zip://::s3://bucket/skills.zip",
                location=url,
            )
        inner = head.removeprefix(_ZIP_PREFIX).removeprefix("zip").strip("/")
        return SourceSpec(target, bundle=True, inner_root=inner or None)
    return SourceSpec(url, bundle=is_zip_path(url))


def check_names_something(url: str) -> None:
    """Refuse, from the text alone, a source that names no folder, bucket or repository.

    An empty string, an empty link in a ``::`` chain, ``file://`` without a path, an
    ``s3://`` or ``gs://`` URL without a bucket, ``github://`` without ``ORG:REPO`` and an
    HTTP URL without a host are refused here, before any filesystem is built, so no
    credential lookup or request is ever made for them.

    Raises:
        UnsupportedSourceError: The URL names nothing; the message shows a complete form.
    """
    if not url.strip():
        raise UnsupportedSourceError("empty source: name a skills folder, a .zip bundle or a URL")
    links = url.split("::")
    if len(links) > 1 and any(not link.strip() for link in links):
        raise UnsupportedSourceError(
            "empty link in a chained URL: '::' joins two URLs, e.g. zip://::s3://bucket/x.zip",
            location=url,
        )
    for link in links:
        problem = _unnamed(link)
        if problem is not None:
            raise UnsupportedSourceError(problem, location=url)


def _unnamed(link: str) -> str | None:
    """Why one link of a URL names nothing, or ``None``."""
    match = _SCHEME.match(link)
    if match is None:
        return None
    protocol, rest = match.group(1).lower(), link[match.end() :]
    head = rest.split("/", 1)[0].split("?", 1)[0]
    if protocol in _CONTAINERS and not head:
        what, form = _CONTAINERS[protocol]
        return f"{protocol}:// URL names no {what}: write {form}"
    if protocol == "github" and not _GITHUB_REPOSITORY.match(head):
        return "github:// URL names no repository: write github://ORG:REPO[@REF][/folder]"
    if protocol == "file" and not rest:
        return "file:// URL names no folder: write file:///path/to/skills"
    return None


def last_link(url: str) -> str:
    """The innermost link of a chained URL (``a::b::s3://x`` gives ``s3://x``)."""
    return url.rsplit("::", maxsplit=1)[-1]


def is_zip_path(url: str) -> bool:
    """True when the last link of ``url`` names a ``.zip`` file."""
    path = last_link(url).split("?", 1)[0]
    return path.lower().endswith(".zip")


def protocol_of(url: str) -> str:
    """The scheme of one URL link, ``file`` for a plain path.

    ``x://y`` is a URL of scheme ``x``, except on Windows, where ``C://skills`` is a drive.
    """
    match = _SCHEME.match(url)
    if match is None or (len(match.group(1)) == 1 and sys.platform == "win32"):
        return "file"
    return match.group(1).lower()


def join_location(base: str, relative: str) -> str:
    """``base`` and a relative path joined with exactly one slash."""
    return f"{base.rstrip('/')}/{relative}" if relative else base
