"""Writing one file to a local path or any fsspec URL (bundles go out through here)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from typing import Any
from urllib.parse import unquote, urlsplit

from backends.errors import StorageError
from backends.remote.errors import Redactor
from backends.remote.filesystem import RemoteFS, check_available, default_retry, prepare
from backends.remote.urls import parse_source, protocol_of


async def write_bytes(url: str, data: bytes, **storage_options: Any) -> str:
    """Create or replace the file at ``url`` with ``data``.

    A local path is replaced atomically (written beside it, then renamed); anything else is
    uploaded through fsspec, with skillfs's retries.

    Args:
        url: A local path, ``file://`` URL or any fsspec URL (``s3://bucket/skills.zip``).
        data: The whole content.
        **storage_options: For the fsspec filesystem.

    Returns:
        Where the file was written, with any password hidden.

    Raises:
        StorageError: The write failed.
        MissingDependencyError: The filesystem's package is not installed.
    """
    redact = Redactor.for_source(url, storage_options)
    location = redact.url(url)
    protocol = protocol_of(url)
    if protocol == "file" and "::" not in url:
        path = unquote(urlsplit(url).path) if url.startswith("file:") else url
        await asyncio.to_thread(_replace_local, path, data, location)
        return location
    check_available(parse_source(url), location=location)
    target, options = prepare(url, storage_options)
    fs = await RemoteFS.open(
        target,
        options,
        location=location,
        redact=redact,
        retry=default_retry(protocol),
    )
    try:
        await fs.pipe(fs.path, data, location=location)
    finally:
        await fs.aclose()
    return location


def _replace_local(path: str, data: bytes, location: str) -> None:
    """Blocking: write ``data`` next to ``path`` and rename it over ``path``."""
    folder = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".skillfs-", delete=False) as handle:
            temporary = handle.name
            handle.write(data)
        os.replace(temporary, path)
    except OSError as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise StorageError(f"cannot write: {exc.strerror or exc}", location=location) from exc
