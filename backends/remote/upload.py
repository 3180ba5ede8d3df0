"""Writing files to a local path or any fsspec URL (bundles and publications go out here)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import stat
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from backends.errors import StorageError
from backends.paths import check_relative_path
from backends.remote.budget import TimeBudget
from backends.remote.errors import Redactor
from backends.remote.filesystem import RemoteFS
from backends.remote.protocols import check_available, default_retry, prepare
from backends.remote.urls import check_names_something, join_location, parse_source, protocol_of

_CONCURRENCY = 16


async def write_bytes(url: str, data: bytes, **storage_options: Any) -> str:
    """Create or replace the file at ``url`` with ``data``.

    A local path is replaced atomically (written beside it, then renamed); anything else is
    uploaded through fsspec, with skillfs's retries and default time budget (10 s plus a
    second per MiB).

    Args:
        url: A local path, ``file://`` URL or any fsspec URL (``s3://bucket/skills.zip``).
        data: The whole content.
        **storage_options: For the fsspec filesystem.

    Returns:
        Where the file was written, with any password hidden.

    Raises:
        UnsupportedSourceError: ``url`` names nothing (empty, ``s3://`` without a bucket...).
        StorageError: The write failed.
        MissingDependencyError: The filesystem's package is not installed.
    """
    return await _write(url, {"": data}, storage_options)


async def write_files(url: str, files: Mapping[str, bytes], **storage_options: Any) -> str:
    """Create or replace files below the folder ``url``, 16 at a time, as :func:`write_bytes`.

    Args:
        url: A local folder, ``file://`` URL or any fsspec URL (``s3://bucket/site``).
        files: The content of each file by its path relative to ``url``.
        **storage_options: For the fsspec filesystem.

    Returns:
        The folder's location, with any password hidden.

    Raises:
        UnsupportedSourceError: ``url`` names nothing.
        UnsafePathError: A path would leave the folder.
        StorageError: A write failed (the others are stopped).
        MissingDependencyError: The filesystem's package is not installed.
    """
    for relative in files:
        check_relative_path(relative)
    return await _write(url, files, storage_options)


async def _write(url: str, files: Mapping[str, bytes], storage_options: Mapping[str, Any]) -> str:
    """Write each of ``files`` (``""`` is ``url`` itself) with one filesystem."""
    check_names_something(url)
    redact = Redactor.for_source(url, storage_options)
    location = redact.url(url)
    protocol = protocol_of(url)
    if protocol == "file" and "::" not in url:
        path = unquote(urlsplit(url).path) if url.startswith("file:") else url
        await asyncio.to_thread(_replace_all, path, files, location)
        return location
    check_available(parse_source(url), location=location)
    budget = TimeBudget()
    target, options = prepare(url, storage_options, timeout=budget.timeout)
    fs = await RemoteFS.open(
        target,
        options,
        location=location,
        redact=redact,
        retry=default_retry(protocol),
        budget=budget,
    )
    gate = asyncio.Semaphore(_CONCURRENCY)

    async def put(relative: str, data: bytes) -> None:
        path = f"{fs.path.rstrip('/')}/{relative}" if relative else fs.path
        async with gate:
            await fs.pipe(path, data, location=join_location(location, relative))

    try:
        async with asyncio.TaskGroup() as group:
            for relative, data in files.items():
                group.create_task(put(relative, data))
    except* StorageError as failed:
        first = failed.exceptions[0]  # the first failure, as one write would raise it
        raise first from first.__cause__
    finally:
        await fs.aclose()
    return location


def _replace_all(root: str, files: Mapping[str, bytes], location: str) -> None:
    """Blocking: replace each file below ``root`` (``""`` names ``root`` itself)."""
    for relative, data in files.items():
        path = os.path.join(root, relative) if relative else root
        _replace_local(path, data, join_location(location, relative))


def _replace_local(path: str, data: bytes, location: str) -> None:
    """Blocking: write ``data`` next to ``path`` and rename it over ``path``.

    The file gets the mode of the one it replaces, or ``0o666`` less the umask when it is
    new, as any program's output does (a temporary file alone would be ``0o600``).
    """
    folder = os.path.dirname(os.path.abspath(path))
    temporary = None
    try:
        os.makedirs(folder, exist_ok=True)
        temporary = os.path.join(folder, f".skillfs-{secrets.token_hex(8)}.tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(descriptor, "wb") as handle:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(descriptor, stat.S_IMODE(os.stat(path).st_mode))
            handle.write(data)
        os.replace(temporary, path)
    except OSError as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise StorageError(f"cannot write: {exc.strerror or exc}", location=location) from exc
