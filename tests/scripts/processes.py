"""The process table, read from /proc: what is still running after a script's call ended."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path


def alive_with(marker: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and "\nState:\tZ" not in status:
            found.append(int(entry))
    return found


def _survivors(marker: str, grace: float) -> list[int]:
    deadline = time.monotonic() + grace
    while (alive := alive_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


async def survivors(marker: str, grace: float = 5.0) -> list[int]:
    """Processes holding ``marker`` that are still alive ``grace`` seconds from now at most.

    A kill is asynchronous (the kernel tears a PID namespace down after its init exits), so the
    table is read until it is clean or the grace period is over; a correct runner is clean at
    once, and a leaking one still shows its survivors after the grace.
    """
    return await asyncio.to_thread(_survivors, marker, grace)


async def appeared(marker: str, limit: float = 30.0) -> bool:
    """Wait until a process holding ``marker`` runs."""
    deadline = time.monotonic() + limit
    while not await asyncio.to_thread(alive_with, marker):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True
