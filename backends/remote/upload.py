"""Writing files to a local path or any fsspec URL (bundles and publications go out here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from backends.remote.output_folder import OutputFolder


async def write_bytes(url: str, data: bytes, **storage_options: Any) -> str:
    """Create or replace the file at ``url`` with ``data``.

    A local path is replaced atomically (written beside it, then renamed); anything else is
    uploaded through fsspec, with skillfs's retries and default deadline (10 s plus a
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
    async with OutputFolder.open(url, **storage_options) as target:
        await target.write({"": data})
    return target.location


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
    async with OutputFolder.open(url, **storage_options) as folder:
        await folder.write(files)
    return folder.location
