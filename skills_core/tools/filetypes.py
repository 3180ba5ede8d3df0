"""What a model receives for each kind of skill file: the one table that decides.

Text goes to the model as text. Images, audio, video and PDF, which models read, go as their
bytes where the adapter sends bytes as such (the ADK toolset as inline data, ``skillfs serve``
as a blob resource). Every other binary file, and every binary file from the shared tool
itself, is *described* -- type, size, sha256 and how to get it -- because base64 text would
only flood the context (a 203 KB PNG is a 271,101-character reply). A caller that wants the
bytes anyway asks for them explicitly (``as_bytes``).
"""

from __future__ import annotations

import mimetypes
import posixpath
from dataclasses import dataclass
from enum import StrEnum


class Delivery(StrEnum):
    """How a file reaches the model."""

    TEXT = "text"
    """Decoded, in ``content``."""
    INLINE = "inline"
    """Bytes a model reads (``content_base64``), for an adapter that sends them as such."""
    DESCRIBED = "described"
    """Type, size and sha256 only, with how to use the file from a script."""
    BYTES = "bytes"
    """Base64 bytes in ``content_base64``, because the caller asked for them."""


@dataclass(frozen=True, slots=True)
class FileKind:
    """One row of :data:`FILE_KINDS`: binary files whose MIME type starts with a prefix."""

    name: str
    delivery: Delivery
    mime_prefixes: tuple[str, ...]


FILE_KINDS = (
    FileKind("image", Delivery.INLINE, ("image/",)),
    FileKind("audio", Delivery.INLINE, ("audio/",)),
    FileKind("video", Delivery.INLINE, ("video/",)),
    FileKind("pdf", Delivery.INLINE, ("application/pdf",)),
    FileKind("font", Delivery.DESCRIBED, ("font/", "application/vnd.ms-fontobject")),
    FileKind(
        "archive",
        Delivery.DESCRIBED,
        (
            "application/zip",
            "application/gzip",
            "application/x-tar",
            "application/x-bzip2",
            "application/x-xz",
            "application/x-7z-compressed",
            "application/vnd.rar",
            "application/java-archive",
        ),
    ),
    FileKind(
        "executable",
        Delivery.DESCRIBED,
        (
            "application/vnd.microsoft.portable-executable",
            "application/x-sharedlib",
            "application/x-mach-binary",
            "application/x-executable",
            "application/wasm",
            "application/java-vm",
            "application/x-python-code",
        ),
    ),
)
"""Binary files by MIME type, first match wins; any other binary file is ``binary``,
described. A file that is UTF-8 without NUL bytes is ``text`` whatever its name."""

OTHER_BINARY = FileKind("binary", Delivery.DESCRIBED, ())

EXTRA_MIME_TYPES = {
    ".ttf": "font/ttf",
    ".otf": "font/otf",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".eot": "application/vnd.ms-fontobject",
    ".gz": "application/gzip",
    ".tgz": "application/gzip",
    ".bz2": "application/x-bzip2",
    ".xz": "application/x-xz",
    ".7z": "application/x-7z-compressed",
    ".rar": "application/vnd.rar",
    ".jar": "application/java-archive",
    ".whl": "application/zip",
    ".exe": "application/vnd.microsoft.portable-executable",
    ".dll": "application/vnd.microsoft.portable-executable",
    ".so": "application/x-sharedlib",
    ".dylib": "application/x-mach-binary",
    ".class": "application/java-vm",
    ".webp": "image/webp",
}
"""Types Python's built-in table lacks or calls ``application/octet-stream``."""


def guess_mime_type(path: str) -> str:
    """The MIME type for a file name (built-in tables only: no system files are read)."""
    extension = posixpath.splitext(path)[1].lower()
    known = EXTRA_MIME_TYPES.get(extension) or mimetypes.types_map.get(extension)
    return known or "application/octet-stream"


def binary_kind(mime_type: str) -> FileKind:
    """The :data:`FILE_KINDS` row for a binary file of ``mime_type``."""
    for kind in FILE_KINDS:
        if mime_type.startswith(kind.mime_prefixes):
            return kind
    return OTHER_BINARY


def as_text(data: bytes) -> str | None:
    """``data`` as text when it is UTF-8 without NUL bytes, else ``None`` (binary)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text
