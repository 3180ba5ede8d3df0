"""fsspec's local filesystem, reading regular files only: a FIFO never holds a worker thread.

fsspec's ``open()`` would wait for a FIFO's writer for ever; here reads open with ``O_NONBLOCK``
and anything but a regular file is refused unread (symlinks followed, as fsspec does).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fsspec.implementations.local import LocalFileOpener, LocalFileSystem

from backends._local_files import open_regular

_regular_only = partial(open_regular, follow_symlinks=True)


class _RegularFileOpener(LocalFileOpener):  # type: ignore[misc]
    def _open(self) -> None:
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
