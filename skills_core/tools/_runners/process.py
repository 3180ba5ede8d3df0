"""ProcessRunner: a script as a plain subprocess of the agent, under a supervisor (docs/scripts.md).

Both local runners start the supervisor (:func:`run_supervised`), which reports how the script
ended on a status pipe: no answer means it never ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from skills_core._errors import ScriptRunnerError
from skills_core.tools._policy import Captured, ProcessOutcome, ScriptRun
from skills_core.tools._runners.supervisor import LAUNCH

logger = logging.getLogger("skillfs.scripts")


class ProcessRunner:
    """Runs scripts as supervised subprocesses; see the module docstring for what it isolates."""

    name = "process"

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run the script in its folder, a scratch folder as home and temp, files capped."""
        async with (
            scratch_folder() as scratch,
            process_limit(run.policy.max_processes, user_wide=True) as limit,
        ):
            env = script_environment(run.env, run.folder, scratch)
            fsize = run.policy.max_scratch_bytes
            return await run_supervised(run, limit, env=env, parent=os.getpid(), fsize=fsize)

    def __repr__(self) -> str:
        return "ProcessRunner()"


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

    It leads its own process group and gets SIGTERM on timeout or cancellation, then SIGKILL
    with its group after a grace period. ``max_output_bytes`` of stdout, and of stderr, are
    kept; ``pass_fds`` are inherited.

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


RUNNERS = os.path.dirname(os.path.abspath(__file__))
"""The folder of the supervisor program (bound read-only into the sandbox)."""
SUPERVISOR = os.path.join(RUNNERS, "supervisor.py")

_STATUS_BYTES = 4096


async def run_supervised(
    run: ScriptRun,
    limit: ProcessLimit,
    *,
    env: Mapping[str, str],
    wrapper: Sequence[str] = (),
    pass_fds: Sequence[int] = (),
    parent: int | None = None,
    fsize: int | None = None,
) -> ProcessOutcome:
    """Run ``run``'s command under the supervisor (inside ``wrapper``), exit code from its status.

    The supervisor stops when ``parent`` dies and gives the command ``limit``, the policy's
    ``RLIMIT_AS`` and ``RLIMIT_FSIZE`` ``fsize``.

    Raises:
        ScriptRunnerError: The supervisor never reported (its wrapper failed to start).
        OSError: The command, or the script's interpreter, could not be started.
    """
    status_read, status_write = os.pipe()
    try:
        argv = [*wrapper, sys.executable, "-I", "-S", "-c", LAUNCH, RUNNERS]
        options = {
            "--status-fd": status_write,
            "--nproc": limit.nproc,
            "--cgroup": limit.cgroup,
            "--parent": parent,
            "--fsize": fsize,
            "--as": run.policy.max_memory_bytes,
        }
        for option, value in options.items():
            if value is not None:
                argv += [option, str(value)]
        outcome = await run_process(
            [*argv, "--", *run.command(run.folder)],
            cwd=run.folder,
            env=env,
            time_limit=run.policy.timeout,
            max_output_bytes=run.policy.max_output_bytes,
            pass_fds=(status_write, *pass_fds),
        )
        os.set_blocking(status_read, False)
        try:
            status = os.read(status_read, _STATUS_BYTES).decode(errors="replace")
        except BlockingIOError:
            status = ""
    finally:
        for fd in (status_read, status_write):
            with contextlib.suppress(OSError):
                os.close(fd)
    return with_status(outcome, status)


def with_status(outcome: ProcessOutcome, status: str) -> ProcessOutcome:
    """``outcome`` with the exit code the supervisor's status line reports.

    Raises:
        OSError: The command could not be started.
        ScriptRunnerError: There is no status: the supervisor never ran the command.
    """
    kind, _, detail = status.strip().partition(" ")
    if outcome.timed_out:
        return replace(outcome, exit_code=-9)
    if kind == "exit":
        return replace(outcome, exit_code=int(detail))
    if kind == "signal":
        return replace(outcome, exit_code=-int(detail))
    if kind == "error":
        number, _, message = detail.partition(" ")
        raise OSError(int(number), message)
    reason = outcome.stderr.text().strip()[-500:] or f"exit status {outcome.exit_code}"
    raise ScriptRunnerError(f"the script did not start: {reason}")


_V1_PIDS = "/sys/fs/cgroup/pids"
_V2_ROOT = "/sys/fs/cgroup"
_REMOVE_TRIES = 100


@dataclass(frozen=True, slots=True)
class ProcessLimit:
    """The process limit of one run: ``RLIMIT_NPROC``, or a pids cgroup folder to join."""

    nproc: int | None = None
    cgroup: str | None = None


@asynccontextmanager
async def process_limit(
    max_processes: int | None, *, user_wide: bool
) -> AsyncIterator[ProcessLimit]:
    """The limit for a run of at most ``max_processes`` (``None``: none) processes.

    ``user_wide``: ``RLIMIT_NPROC`` will count all of the user's processes.
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
        lines = Path("/proc/self/cgroup").read_text().splitlines()
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
        return "pids" in Path(folder, "cgroup.subtree_control").read_text().split()
    except OSError:
        return False


def _make_cgroup(max_processes: int) -> str | None:
    parent = cgroup_parent()
    if parent is None:
        return None
    folder = os.path.join(parent, f"skillfs-{uuid.uuid4().hex}")
    try:
        os.mkdir(folder)
        Path(folder, "pids.max").write_text(str(max_processes))
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


PREFIX = "skillfs-scratch-"
_STALE = re.compile(re.escape(PREFIX) + r"(\d+)-[a-z0-9_]+")


@asynccontextmanager
async def scratch_folder() -> AsyncIterator[str]:
    """A private empty folder for one run (mode 0700), deleted after; stale ones go first."""
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
