"""ProcessRunner: a script as a plain subprocess of the agent, under a supervisor.

It isolates nothing but the environment variables and the lifetime: the script runs as the
agent's user, so it can read what that user can (files, and ``/proc/<pid>/environ`` of the
agent's own processes), write where that user can, and use the network. What it guarantees is
that no process it starts outlives the call: a child subreaper (see
:mod:`~skills_core.tools.runners.supervisor`) kills every descendant, new sessions included, when
the script exits, times out or is cancelled, and when the agent itself dies.

Measured on Linux 6.18 as root and as ``nobody``: ``prctl(PR_SET_CHILD_SUBREAPER)`` works for
both; creating a pids cgroup works only for root; ``unshare --user --pid`` works for both but
only where unprivileged user namespaces are allowed (Docker's default seccomp profile forbids
them), so the subreaper is what this runner relies on; the sandbox runner is the namespace one.
"""

from __future__ import annotations

import functools
import os

from skills_core.tools.command import ProcessOutcome
from skills_core.tools.runners.base import ScriptRun, script_environment
from skills_core.tools.runners.process_limit import process_limit
from skills_core.tools.runners.scratch import scratch_folder
from skills_core.tools.runners.supervised import run_supervised, supervisor_argv


class ProcessRunner:
    """Runs scripts as supervised subprocesses; see the module docstring for what it isolates."""

    @property
    def name(self) -> str:
        """``"process"``."""
        return "process"

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run the script in its folder with a scratch folder as home and temp.

        ``RLIMIT_FSIZE`` caps each file the script writes at ``run.max_scratch_bytes``; the
        scratch folder of an agent killed mid-run is removed by the next agent's first run
        (see :mod:`~skills_core.tools.runners.scratch`).
        """
        async with (
            scratch_folder() as scratch,
            process_limit(run.max_processes, user_wide=True) as limit,
        ):
            env = script_environment(run.env, run.folder, scratch)
            command = run.command(run.folder)
            supervisor = functools.partial(
                supervisor_argv,
                limit=limit,
                parent=os.getpid(),
                max_file_bytes=run.max_scratch_bytes,
                max_memory_bytes=run.max_memory_bytes,
            )
            return await run_supervised(lambda fd: [*supervisor(fd), *command], run, env=env)

    def __repr__(self) -> str:
        return "ProcessRunner()"
