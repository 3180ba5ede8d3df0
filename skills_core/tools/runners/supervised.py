"""What the two local runners share: a supervised process.

Both start :mod:`~skills_core.tools.runners.supervisor` (directly, or inside bubblewrap), which
reports how the script ended on a status pipe. Its answer is the run's exit code; no answer
means the supervisor never ran (bubblewrap refused to start), and that is an error, not a
script failure.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from skills_core.errors import ScriptRunnerError
from skills_core.tools.command import ProcessOutcome, run_process
from skills_core.tools.runners.base import ScriptRun
from skills_core.tools.runners.process_limit import ProcessLimit
from skills_core.tools.runners.supervisor import LAUNCH

RUNNERS = os.path.dirname(os.path.abspath(__file__))
"""The folder of the supervisor program (bound read-only into the sandbox)."""
SUPERVISOR = os.path.join(RUNNERS, "supervisor.py")

_STATUS_BYTES = 4096


def supervisor_argv(
    status_fd: int,
    limit: ProcessLimit,
    *,
    parent: int | None = None,
    max_file_bytes: int | None = None,
    max_memory_bytes: int | None = None,
) -> list[str]:
    """The supervisor's command line, up to and including the ``--`` before the command.

    Args:
        status_fd: Where the supervisor reports how the command ended.
        limit: The run's process limit.
        parent: Stop when this process dies.
        max_file_bytes: ``RLIMIT_FSIZE`` for the command: no file it writes grows past it.
        max_memory_bytes: ``RLIMIT_AS`` for the command: each process's virtual memory.
    """
    argv = [sys.executable, "-I", "-S", "-c", LAUNCH, RUNNERS, "--status-fd", str(status_fd)]
    argv += limit.options()
    if parent is not None:
        argv += ["--parent", str(parent)]
    if max_file_bytes is not None:
        argv += ["--fsize", str(max_file_bytes)]
    if max_memory_bytes is not None:
        argv += ["--as", str(max_memory_bytes)]
    return [*argv, "--"]


async def run_supervised(
    argv_for: Callable[[int], Sequence[str]],
    run: ScriptRun,
    *,
    env: Mapping[str, str],
    pass_fds: Sequence[int] = (),
) -> ProcessOutcome:
    """Run the command ``argv_for(status_fd)`` builds, and take its exit code from the status.

    ``pass_fds`` are descriptors the command inherits besides the status pipe.

    Raises:
        ScriptRunnerError: The supervisor never reported (its wrapper failed to start).
        OSError: The command, or the script's interpreter, could not be started.
    """
    status_read, status_write = os.pipe()
    try:
        outcome = await run_process(
            argv_for(status_write),
            cwd=run.folder,
            env=env,
            time_limit=run.time_limit,
            max_output_bytes=run.max_output_bytes,
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
    return _with_status(outcome, status)


def _with_status(outcome: ProcessOutcome, status: str) -> ProcessOutcome:
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
