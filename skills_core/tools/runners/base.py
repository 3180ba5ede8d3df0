"""The ScriptRunner seam: run this skill script with these arguments, environment and limits.

A :class:`ScriptRun` is a run every check has already passed: the script exists, its
interpreter is allowed, its arguments are plain strings. A runner decides only *where and how
isolated* it runs and reports a :class:`~skills_core.tools.command.ProcessOutcome`. Three ship
with skillfs: :class:`~skills_core.tools.runners.sandbox.SandboxRunner` (bubblewrap),
:class:`~skills_core.tools.runners.process.ProcessRunner` (a supervised subprocess) and, for
ADK users, ``skills_core.adk.executor.CodeExecutorRunner`` (any google-adk code executor).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from skills_core.tools.command import ProcessOutcome

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
