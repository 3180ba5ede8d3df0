"""fsspec's local filesystem, reading regular files only: a FIFO never holds a worker thread.

fsspec opens a ``file://`` path with ``open()``, which waits for a writer when the path is a
named pipe: in a folder source (a published index, ``index.json.sig`` included) anyone who can
write there could park one worker thread per read for ever, until the default executor is full
and every ``asyncio.to_thread`` of the process waits. Here a file opened to be read is opened
with ``O_NONBLOCK`` and checked with ``fstat``; anything but a regular file is refused unread.
Symlinks are followed, as fsspec does.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fsspec.implementations.local import LocalFileOpener, LocalFileSystem

from backends._local_files import open_regular

_regular_only = partial(open_regular, follow_symlinks=True)
"""An ``opener`` for ``open()``: the descriptor of a path only if it is a regular file."""


class _RegularFileOpener(LocalFileOpener):  # type: ignore[misc]
    def _open(self) -> None:
        """Open as fsspec does, a read through :func:`_regular_only`."""
        current: Any = getattr(self, "f", None)
        if self.mode != "rb" or self.compression or not (current is None or current.closed):
            super()._open()
            return
        handle: Any = open(self.path, "rb", opener=_regular_only)  # noqa: SIM115 - kept open
        self.size = handle.size = handle.seek(0, 2)
        handle.seek(0)
        self.f = handle


class RegularLocalFileSystem(LocalFileSystem):  # type: ignore[misc]
    """:class:`LocalFileSystem` whose reads refuse FIFOs, devices, sockets and directories."""

    def _open(self, path: str, mode: str = "rb", block_size: Any = None, **kwargs: Any) -> Any:
        if mode != "rb":
            return super()._open(path, mode, block_size, **kwargs)
        return _RegularFileOpener(self._strip_protocol(path), mode, fs=self, **kwargs)
