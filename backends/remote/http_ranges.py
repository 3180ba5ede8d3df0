"""Ranged GETs on plain HTTP servers, which may ignore ``Range`` and send the whole file.

fsspec's ``HTTPFileSystem._cat_file`` reads whatever body comes back, so a server that ignores
``Range`` (``python -m http.server``, many static file servers) answers a request for an
archive's last 64 KiB with the whole archive, and the caller cannot tell. Here the status is
looked at before the body is read, as fsspec's own ``HTTPFile.async_fetch_range`` does: a 206
is the range; a 200 is the whole file, read only when the caller can use up to that many bytes,
and refused before its body is read otherwise.
"""

from __future__ import annotations

from typing import Any

from backends.remote.foreign_errors import RangesIgnoredError

_PARTIAL_CONTENT = 206


async def fetch_range(
    fs: Any, url: str, start: int, end: int, *, whole_up_to: int, location: str
) -> bytes:
    """Bytes ``[start, end)`` of ``url``, or the whole file when the server sends it.

    Runs on the loop ``fs`` (an ``HTTPFileSystem``) belongs to, with its session, headers and
    options.

    Args:
        fs: The HTTP filesystem.
        url: The file.
        start: The first byte wanted.
        end: One past the last byte wanted.
        whole_up_to: The largest whole file the caller can use instead (0: none).
        location: Where the file is, for messages.

    Raises:
        RangesIgnoredError: The server sent the whole file and it is larger than
            ``whole_up_to`` (stopped at its headers when they give its length).
        FileNotFoundError: A 404.
        aiohttp.ClientResponseError: Any other failed status.
    """
    if start >= end:
        return b""
    options = dict(fs.kwargs)
    headers = {**options.pop("headers", {}), "Range": f"bytes={start}-{end - 1}"}
    session = await fs.set_session()
    async with session.get(fs.encode_url(url), headers=headers, **options) as response:
        fs._raise_not_found_for_status(response, url)
        if response.status == _PARTIAL_CONTENT:
            return bytes(await response.read())
        declared = response.content_length
        if declared is not None and declared > whole_up_to:
            raise _ignored(start, end, declared, location)
        chunks: list[bytes] = []
        received = 0
        async for chunk in response.content.iter_any():
            received += len(chunk)
            if received > whole_up_to:
                raise _ignored(start, end, None, location)
            chunks.append(chunk)
        return b"".join(chunks)


def _ignored(start: int, end: int, size: int | None, location: str) -> RangesIgnoredError:
    sent = "the whole file" if size is None else f"the whole {size}-byte file"
    return RangesIgnoredError(
        f"the server does not answer ranged requests: asked for bytes {start}-{end - 1}, "
        f"it sent {sent}",
        location=location,
    )
