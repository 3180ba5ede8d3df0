"""The process runner's scratch folders, and the removal of those a killed agent left behind.

A scratch folder is ``skillfs-scratch-<agent pid>-<random>`` in the temporary folder, and the
agent holds an ``flock`` on it while a run uses it. An agent killed mid-run (SIGKILL, OOM) cannot
delete its folder; the first run of the next agent in the same temporary folder removes it. A
folder is removed only when all of these hold: its name has that pattern, it is a real folder
(not a symlink) owned by this user, the pid in its name is no live process, and nobody holds
its lock (a live agent in another PID namespace still does). The sandbox needs none of this:
its scratch is a tmpfs that vanishes with its namespace.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import logging
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

logger = logging.getLogger("skillfs.scripts")

PREFIX = "skillfs-scratch-"
_STALE = re.compile(re.escape(PREFIX) + r"(\d+)-[a-z0-9_]+")


@asynccontextmanager
async def scratch_folder() -> AsyncIterator[str]:
    """A private empty folder for one run (mode 0700), deleted with everything in it after.

    The first call in a process first removes the stale folders of dead agents.
    """
    await asyncio.to_thread(remove_stale_scratch)
    folder, lock = await asyncio.to_thread(_make_locked)
    try:
        yield folder
    finally:
        await asyncio.to_thread(_remove, folder, lock)


@functools.cache
def remove_stale_scratch() -> None:
    """Remove the scratch folders agents that died left in the temporary folder (once)."""
    root = tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        match = _STALE.fullmatch(name)
        if match is not None and not _alive(int(match[1])):
            _remove_if_unlocked(os.path.join(root, name))


def _make_locked() -> tuple[str, int]:
    folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    lock = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    return folder, lock


def _remove(folder: str, lock: int) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    os.close(lock)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def _remove_if_unlocked(folder: str) -> None:
    try:
        lock = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        if os.fstat(lock).st_uid != os.geteuid():
            return
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a live agent still uses it
            return
        shutil.rmtree(folder, ignore_errors=True)
        logger.info("removed %s, the scratch folder of an agent that died mid-run", folder)
    finally:
        os.close(lock)
