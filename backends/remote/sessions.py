"""Closing a native-async filesystem's HTTP session on the loop it belongs to.

fsspec's own finalizers close sessions synchronously, blocking whichever thread collects the
filesystem; skillfs builds native-async filesystems in asynchronous mode (no such finalizer)
and closes their sessions itself: awaited by ``aclose()``, or scheduled, never waited for, by
a finalizer when a filesystem is dropped unclosed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def session_closing(fs: Any) -> Coroutine[Any, Any, Any] | None:
    """The coroutine that closes ``fs``'s session (aiohttp or aiobotocore), once."""
    session = getattr(fs, "_session", None)  # http, gcsfs
    if session is not None and not session.closed:
        return session.close()  # type: ignore[no-any-return]
    creator = getattr(fs, "_s3creator", None)  # s3fs
    if creator is not None:
        fs._s3creator = fs._s3 = None
        return creator.__aexit__(None, None, None)  # type: ignore[no-any-return]
    return None


def io_loop(fs: Any) -> asyncio.AbstractEventLoop:
    """The loop ``fs``'s coroutines run on: its own, or fsspec's I/O loop in async mode."""
    from fsspec.asyn import get_loop

    return fs.loop or get_loop()  # type: ignore[no-any-return]


def close_soon(loop: asyncio.AbstractEventLoop, fs: Any) -> None:
    """Schedule the close of ``fs``'s session on ``loop``, without waiting for it."""
    if loop.is_running() and not loop.is_closed():
        loop.call_soon_threadsafe(_start_closing, fs)


_CLOSING: set[asyncio.Future[Any]] = set()
"""Session closes scheduled by finalizers, kept until done (the loop holds tasks weakly)."""


def _start_closing(fs: Any) -> None:
    closing = session_closing(fs)
    if closing is not None:
        task = asyncio.ensure_future(closing)
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)
