"""How a run's process limit is enforced: ``RLIMIT_NPROC``, or a pids cgroup for root.

The kernel never applies ``RLIMIT_NPROC`` to root (not even inside a user namespace), so for
root each run gets its own pids cgroup when the cgroup filesystem is writable (cgroup v1's
``pids`` hierarchy, or a v2 tree that delegates the ``pids`` controller). For other users
``RLIMIT_NPROC`` counts every process of the user: inside the sandbox's user namespace that is
the sandbox alone, for the process runner it is the user's whole process count, so the process
runner allows the processes the user already has plus ``max_processes``. Where neither works
(root in a container with a read-only cgroup filesystem), the run goes ahead and a warning says
the limit is not enforced.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

logger = logging.getLogger("skillfs.scripts")

_V1_PIDS = "/sys/fs/cgroup/pids"
_V2_ROOT = "/sys/fs/cgroup"
_REMOVE_TRIES = 100


@dataclass(frozen=True, slots=True)
class ProcessLimit:
    """The process limit of one run, as the supervisor applies it.

    Attributes:
        nproc: ``RLIMIT_NPROC`` for the command.
        cgroup: A pids cgroup folder the supervisor joins before starting the command.
    """

    nproc: int | None = None
    cgroup: str | None = None

    def options(self) -> list[str]:
        """The supervisor's options for this limit."""
        options = []
        if self.nproc is not None:
            options += ["--nproc", str(self.nproc)]
        if self.cgroup is not None:
            options += ["--cgroup", self.cgroup]
        return options


@asynccontextmanager
async def process_limit(
    max_processes: int | None, *, user_wide: bool
) -> AsyncIterator[ProcessLimit]:
    """The limit for one run of at most ``max_processes`` processes; see the module docstring.

    Args:
        max_processes: The limit, or ``None`` for none.
        user_wide: True when ``RLIMIT_NPROC`` will count all of the user's processes.
    """
    if max_processes is None:
        yield ProcessLimit()
        return
    if os.geteuid() != 0:
        already = await asyncio.to_thread(_user_processes) if user_wide else 0
        yield ProcessLimit(nproc=already + max_processes)
        return
    cgroup = await asyncio.to_thread(_make_cgroup, max_processes)
    if cgroup is None:
        _warn_unenforced(max_processes)
        yield ProcessLimit()
        return
    try:
        yield ProcessLimit(cgroup=cgroup)
    finally:
        await asyncio.to_thread(_remove_cgroup, cgroup)


@functools.cache
def cgroup_parent() -> str | None:
    """A writable cgroup folder with the pids controller to create run cgroups in, if any."""
    try:
        with open("/proc/self/cgroup") as own:
            lines = own.read().splitlines()
    except OSError:
        return None
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            folder = _V1_PIDS + path.rstrip("/")
        elif hierarchy == "0" and _delegates_pids(_V2_ROOT + path.rstrip("/")):
            folder = _V2_ROOT + path.rstrip("/")
        else:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return None


def _delegates_pids(folder: str) -> bool:
    try:
        with open(os.path.join(folder, "cgroup.subtree_control")) as control:
            return "pids" in control.read().split()
    except OSError:
        return False


def _make_cgroup(max_processes: int) -> str | None:
    parent = cgroup_parent()
    if parent is None:
        return None
    folder = os.path.join(parent, f"skillfs-{uuid.uuid4().hex}")
    try:
        os.mkdir(folder)
        with open(os.path.join(folder, "pids.max"), "w") as limit:
            limit.write(str(max_processes))
    except OSError:
        with contextlib.suppress(OSError):
            os.rmdir(folder)
        return None
    return folder


def _remove_cgroup(folder: str) -> None:
    """Kill anything still in the cgroup, then remove it once the kernel let it go."""
    for _ in range(_REMOVE_TRIES):
        with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.procs")) as procs:
            for pid in procs.read().split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGKILL)
        try:
            os.rmdir(folder)
        except FileNotFoundError:
            return
        except OSError:  # busy while its last processes exit
            time.sleep(0.01)
        else:
            return
    logger.warning("could not remove the pids cgroup %s", folder)


def _user_processes() -> int:
    uid = os.getuid()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                count += os.stat(f"/proc/{entry}").st_uid == uid
    return count


@functools.cache
def _warn_unenforced(max_processes: int) -> None:
    logger.warning(
        "ScriptPolicy.max_processes=%d is not enforced: skillfs runs as root, where the kernel "
        "ignores RLIMIT_NPROC, and no pids cgroup can be created here (the cgroup filesystem "
        "is read-only or does not delegate the pids controller); run the agent as another "
        "user, or give it a writable cgroup",
        max_processes,
    )
