"""A deadline for every remote storage operation, and a short pause after a stall.

Without one, a store that accepts connections and never answers held a refresh for about 62 s:
s3fs's 15 s read timeout, once per attempt of four. Here each operation -- a listing, one
SKILL.md or resource read, a bundle's HEAD or download, an upload -- gets ``timeout`` seconds
in all, every attempt and backoff wait included, plus one second per MiB it transfers (so a big
bundle on a slow link still arrives). When an operation runs out of time the store is taken to
be stalled: for the next ``timeout`` seconds every operation fails at once instead of waiting
again, so the other SKILL.md reads of that refresh do not each wait their own deadline. A refresh
therefore ends within about ``timeout`` when the listing stalls, and within about twice that
when the listing answered and the reads stall.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from backends.errors import StorageError

DEFAULT_TIMEOUT = 10.0
"""Seconds one remote storage operation may take by default, retries included."""

_SECONDS_PER_BYTE = 1 / (1024 * 1024)


class Deadline:
    """Bounds every operation of one backend; see the module docstring.

    Args:
        timeout: Seconds per operation, retries included; ``None`` leaves only the store's own
            timeouts and retries.

    Raises:
        ValueError: ``timeout`` is not positive.
    """

    def __init__(self, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.timeout = timeout
        self._stalled_at: float | None = None

    def seconds(self, size: int | None = None) -> float | None:
        """The deadline of one operation that transfers ``size`` bytes."""
        if self.timeout is None:
            return None
        return self.timeout + (size or 0) * _SECONDS_PER_BYTE

    @asynccontextmanager
    async def bounded(self, *, location: str, size: int | None = None) -> AsyncIterator[None]:
        """Run the body within the deadline.

        Raises:
            StorageError: The body ran out of time, or the store stalled less than
                ``timeout`` seconds ago (then the body does not run).
        """
        seconds = self.seconds(size)
        if seconds is None:
            yield
            return
        self._refuse_while_stalled(location)
        try:
            async with asyncio.timeout(seconds) as scope:
                yield
        except TimeoutError as exc:
            if not scope.expired():
                raise  # a timeout of the store's own client: the retry layer judged it
            self._stalled_at = time.monotonic()
            raise StorageError(
                f"timed out: no complete answer within {seconds:g} s, retries included "
                "(the backend's timeout)",
                location=location,
            ) from exc

    def _refuse_while_stalled(self, location: str) -> None:
        if self._stalled_at is None or self.timeout is None:
            return
        since = time.monotonic() - self._stalled_at
        if since < self.timeout:
            raise StorageError(
                f"not tried: the store timed out {since:.1f} s ago; it is tried again "
                f"{self.timeout:g} s after a timeout",
                location=location,
            )
        self._stalled_at = None
