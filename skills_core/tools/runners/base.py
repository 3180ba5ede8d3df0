"""The ScriptRunner seam: run this skill script with these arguments, environment and limits.

A :class:`ScriptRun` is a run every check has already passed: the script exists, its
interpreter is allowed, its arguments are plain strings. A runner decides only *where and how
isolated* it runs and reports a :class:`ProcessOutcome`. Three ship with skillfs:
:class:`~skills_core.tools.runners.sandbox.SandboxRunner` (bubblewrap),
:class:`~skills_core.tools.runners.process.ProcessRunner` (a supervised subprocess) and, for
ADK users, ``skills_core.adk.executor.CodeExecutorRunner`` (any google-adk code executor).

:func:`run_process` runs one command without blocking the event loop: in a new session (its
own process group), with a time limit and capped output. On timeout or cancellation it is
asked to stop (SIGTERM: the supervisor and bubblewrap then kill everything they started) and
killed with its group after a grace period; after any ending, whatever is left in its group is
killed too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import posixpath
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

SCRATCH_VARIABLES = ("TMPDIR", "TMP", "TEMP", "HOME")
"""Variables that point a script at its scratch folder, the one place it may write."""


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """One checked script run.

    Attributes:
        folder: The skill's local folder: the working directory, read-only where the runner
            can enforce it.
        script: The script's POSIX path relative to ``folder``.
        interpreter: The command prefix that runs it; the script's path and arguments follow.
        arguments: The script's arguments.
        files: Every file of the skill, relative to ``folder`` (what a runner copies elsewhere).
        env: The scrubbed environment the policy allows.
        time_limit: Seconds before the whole run is stopped.
        max_output_bytes: Bytes of stdout, and of stderr, to keep.
        max_processes: Most processes the run may have at once (``None``: no limit of ours).
        max_copy_bytes: Largest total size of files a runner may copy elsewhere.
        max_scratch_bytes: Most bytes the script may write to its scratch space, where the
            runner can cap it (see :attr:`~skills_core.tools.policy.ScriptPolicy`).
        max_memory_bytes: ``RLIMIT_AS`` of each of the script's processes, where the runner
            can set it (``None``: no limit of ours).
        network: Whether the script may use the network, where the runner can deny it.
        readable: Host paths the script may read besides its skill and the system, where the
            runner hides the rest.
    """

    folder: str
    script: str
    interpreter: tuple[str, ...]
    arguments: tuple[str, ...]
    files: tuple[str, ...]
    env: Mapping[str, str]
    time_limit: float
    max_output_bytes: int
    max_processes: int | None
    max_copy_bytes: int
    max_scratch_bytes: int
    max_memory_bytes: int | None = None
    network: bool = False
    readable: tuple[str, ...] = ()

    def command(self, folder: str) -> list[str]:
        """The full command line when the skill sits in ``folder``."""
        return [*self.interpreter, posixpath.join(folder, self.script), *self.arguments]


def script_environment(base: Mapping[str, str], folder: str, scratch: str) -> dict[str, str]:
    """``base`` plus what every runner sets: scratch as home and temp, the skill on PYTHONPATH.

    With the skill folder on ``PYTHONPATH``, package-style imports from the skill root
    (``from scripts.helpers import x``, as ``python -m scripts.x`` would allow) work.
    """
    env = dict(base)
    env.update(dict.fromkeys(SCRATCH_VARIABLES, scratch))
    extra = env.get("PYTHONPATH")
    env["PYTHONPATH"] = f"{folder}:{extra}" if extra else folder
    return env


@runtime_checkable
class ScriptRunner(Protocol):
    """Runs checked skill scripts; see the module docstring."""

    @property
    def name(self) -> str:
        """A short name for messages and logs (``"sandbox"``, ``"process"``)."""

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run ``run`` to its end, its time limit, or the caller's cancellation.

        Nothing the script started may outlive the call.

        Raises:
            RunnerUnavailableError: The runner cannot work here (what to install is named).
            ScriptRunnerError: The runner failed to run the script.
            OSError: The interpreter could not be started.
        """


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
    """How a command ended.

    Attributes:
        exit_code: The exit status; negative for a signal (``-9`` after a timeout kill).
        stdout: What it wrote to stdout, capped.
        stderr: What it wrote to stderr, capped.
        timed_out: True when it was killed for running past its time limit.
    """

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

    Args:
        argv: The command and its arguments.
        cwd: Its working directory.
        env: Its whole environment.
        time_limit: Seconds before it is stopped.
        max_output_bytes: Bytes of stdout, and of stderr, to keep.
        pass_fds: Descriptors it inherits (a status pipe).

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
        _kill_group(process)
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


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the process group the command leads; the leader itself if groups are unknown."""
    killpg = getattr(os, "killpg", None)
    if killpg is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            killpg(process.pid, signal.SIGKILL)
        return
    with contextlib.suppress(ProcessLookupError):
        process.kill()
