"""Run one command without blocking the event loop: a time limit, capped output, no leftovers.

The command leads its own process group. On timeout or cancellation it gets SIGTERM, then
SIGKILL with its group after a grace period; after any ending its group is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SCRATCH_VARIABLES = ("TMPDIR", "TMP", "TEMP", "HOME")
"""Variables that point a script at its scratch folder, the one place it may write."""


def script_environment(base: Mapping[str, str], folder: str, scratch: str) -> dict[str, str]:
    """``base`` with scratch as home and temp, and the skill on PYTHONPATH (``scripts.x``)."""
    env = dict(base)
    env.update(dict.fromkeys(SCRATCH_VARIABLES, scratch))
    extra = env.get("PYTHONPATH")
    env["PYTHONPATH"] = f"{folder}:{extra}" if extra else folder
    return env


_CHUNK = 64 * 1024
_DRAIN_GRACE = 1.0
"""Seconds to finish reading output once the process tree is dead."""
_STOP_GRACE = 2.0
"""Seconds a command has to end after SIGTERM before it is killed."""


@dataclass(frozen=True, slots=True)
class Captured:
    """The first bytes of one output stream, and how many there were in all."""

    data: bytes
    total: int

    @property
    def truncated(self) -> bool:
        """True when the stream held more than was kept."""
        return self.total > len(self.data)

    def text(self) -> str:
        """The kept bytes as text (invalid UTF-8 replaced)."""
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a command ended: exit code (``-N`` for signal N), capped output, timed out or not."""

    exit_code: int
    stdout: Captured
    stderr: Captured
    timed_out: bool


async def run_process(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    time_limit: float,
    max_output_bytes: int,
    pass_fds: Sequence[int] = (),
) -> ProcessOutcome:
    """Run ``argv`` (no shell) in ``cwd`` with exactly ``env``, stopped after ``time_limit`` s.

    ``max_output_bytes`` of stdout, and of stderr, are kept; ``pass_fds`` are inherited.

    Raises:
        OSError: The command could not be started (no such program, bad folder).
    """
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=pass_fds,
    )
    assert process.stdout is not None  # PIPE was asked for
    assert process.stderr is not None
    sinks = (_Sink(max_output_bytes), _Sink(max_output_bytes))
    readers = [
        asyncio.create_task(sinks[0].drain(process.stdout)),
        asyncio.create_task(sinks[1].drain(process.stderr)),
    ]
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), time_limit)
    except TimeoutError:
        timed_out = True
    finally:
        exit_code = await _stop(process)
    # Anything that escaped the kill (a new session of its own) cannot hold the pipes open.
    _, pending = await asyncio.wait(readers, timeout=_DRAIN_GRACE)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return ProcessOutcome(exit_code, sinks[0].captured(), sinks[1].captured(), timed_out)


async def _stop(process: asyncio.subprocess.Process) -> int:
    """End ``process`` (politely first if it still runs) and kill what is left of its group."""
    try:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), _STOP_GRACE)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # the group the command leads
    return await process.wait()


class _Sink:
    """Keeps the first ``limit`` bytes of a stream and counts the rest."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept = bytearray()
        self._total = 0

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(_CHUNK):
            self._total += len(chunk)
            room = self._limit - len(self._kept)
            if room > 0:
                self._kept += chunk[:room]

    def captured(self) -> Captured:
        return Captured(bytes(self._kept), self._total)
