"""One retry layer for remote storage, with capped exponential backoff and full jitter.

Retry loops multiply when stacked: botocore's five attempts inside s3fs's five gave 25 requests
for one key under a persistent 503. skillfs therefore retries once, here, and turns the loops of
botocore and s3fs off (see :mod:`backends.remote.protocols`). gcsfs cannot be told to stop
retrying, so GCS keeps its own loop and this one is off for it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from backends.remote.foreign_errors import is_transient

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to retry a transient failure.

    Attributes:
        attempts: Total tries per operation, the first included (1 disables retries).
        base_delay: Seconds before the first retry; doubles after each failure.
        max_delay: Ceiling for one wait, in seconds.
    """

    attempts: int = 4
    base_delay: float = 0.2
    max_delay: float = 5.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")

    def delay(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failed attempts (full jitter)."""
        ceiling = min(self.max_delay, self.base_delay * 2 ** (failures - 1))
        return random.uniform(0, ceiling)


NO_RETRY = RetryPolicy(attempts=1)


async def retrying(policy: RetryPolicy, operation: Callable[[], Awaitable[T]]) -> T:
    """Run ``operation`` until it succeeds, fails permanently, or runs out of attempts.

    Raises:
        Exception: The last failure, unchanged.
    """
    failures = 0
    while True:
        try:
            return await operation()
        except Exception as exc:
            failures += 1
            if failures >= policy.attempts or not is_transient(exc):
                raise
            await asyncio.sleep(policy.delay(failures))
