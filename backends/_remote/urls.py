"""What a source URL names, by its text alone: a folder or a zip bundle, on which storage."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from backends._errors import UnsupportedSourceError

WEB = ("http", "https")

_ZIP_PREFIX = "zip://"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_GITHUB_REPOSITORY = re.compile(r"^[^:/@]+:[^:/@]+(@[^/]+)?$")
_CONTAINERS = {  # protocols whose URL starts with a container: what, and a complete form
    "s3": ("bucket", "s3://BUCKET[/folder]"),
    "s3a": ("bucket", "s3a://BUCKET[/folder]"),
    "gs": ("bucket", "gs://BUCKET[/folder]"),
    "gcs": ("bucket", "gcs://BUCKET[/folder]"),
    "http": ("host", "http://HOST (its skills index) or http://HOST/skills.zip"),
    "https": ("host", "https://HOST (its skills index) or https://HOST/skills.zip"),
}


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A parsed source URL: what fsspec opens, whether a bundle, the skills root inside one."""

    target: str
    bundle: bool
    inner_root: str | None = None

    @property
    def protocol(self) -> str:
        """The storage protocol of the target's innermost link (``file`` for paths)."""
        return protocol_of(last_link(self.target))

    @property
    def protocols(self) -> tuple[str, ...]:
        """The protocol of every link of a chained target."""
        return tuple(protocol_of(link) for link in self.target.split("::"))


def parse_source(url: str) -> SourceSpec:
    """Split ``url`` into what to open and how to read it (UnsupportedSourceError)."""
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
    """Refuse, before any request, a source naming no folder, bucket, repository or host."""
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
    """The scheme of one URL link, ``file`` for a plain path (or a Windows drive)."""
    match = _SCHEME.match(url)
    if match is None or (len(match.group(1)) == 1 and sys.platform == "win32"):
        return "file"
    return match.group(1).lower()


def join_location(base: str, relative: str) -> str:
    """``base`` and a relative path joined with exactly one slash."""
    return f"{base.rstrip('/')}/{relative}" if relative else base
