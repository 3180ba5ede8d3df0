"""SandboxRunner: each script run in its own set of Linux namespaces, through bubblewrap.

What a script sees (``bwrap`` arguments built by :func:`sandbox_arguments`):

- its own user, PID, IPC and UTS namespaces, and a ``/proc`` that shows only its own
  processes: the agent's processes and their environments are out of sight;
- no network (a private network namespace with nothing but its own loopback), unless the
  policy sets ``network=True``;
- the system read-only (``/usr``, ``/etc`` and the ``/bin``/``/lib`` links), the Python that
  runs skillfs and the interpreter's own installation read-only, the skill's folder and the
  policy's ``readable`` paths read-only, and nothing else of the host: no home folders (so no
  credential files), no other projects, no host ``/tmp`` or ``/run`` (so no Unix sockets such
  as a Docker daemon's or an ssh agent's);
- two writable places, each a tmpfs (memory) of at most ``max_scratch_bytes``: the scratch
  folder at ``/tmp``, which is also ``HOME`` and ``TMPDIR``, and ``/dev/shm`` (POSIX shared
  memory, which Python's ``multiprocessing`` locks need); a write past the size fails with
  ``ENOSPC``. They vanish with the sandbox's mount namespace, so nothing is left on the host's
  disk, even when the agent is killed. Every other path, ``/dev`` included, is read-only;
- the policy's scrubbed environment.

When the call ends - exit, timeout or cancellation - the PID namespace dies with every process
in it; bubblewrap also dies with the agent (``--die-with-parent``).
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence

from backends.paths import is_within
from skills_core.errors import RunnerUnavailableError
from skills_core.tools.command import ProcessOutcome
from skills_core.tools.runners.base import ScriptRun, script_environment
from skills_core.tools.runners.process_limit import ProcessLimit, process_limit
from skills_core.tools.runners.supervised import RUNNERS, run_supervised, supervisor_argv

SANDBOX_TMP = "/tmp"
"""Where the scratch folder appears inside the sandbox."""
SANDBOX_SHM = "/dev/shm"

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; Arch: pacman -S bubblewrap), or run scripts unsandboxed on purpose with "
    "ScriptPolicy(runner=ProcessRunner())"
)

_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_NAMESPACES = ("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts")


class SandboxRunner:
    """Runs scripts inside bubblewrap; see the module docstring for what it isolates.

    Args:
        bwrap: The bubblewrap command, by name or path.
    """

    def __init__(self, *, bwrap: str = "bwrap") -> None:
        self._bwrap = bwrap
        self._executable: str | None = None

    @property
    def name(self) -> str:
        """``"sandbox"``."""
        return "sandbox"

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run the script in a fresh sandbox.

        Raises:
            RunnerUnavailableError: bubblewrap is not installed (or this is not Linux), or is
            older than 0.8.0, which brought the ``--size`` the scratch cap needs.
        """
        bwrap = await self._find_bwrap()
        async with process_limit(run.max_processes, user_wide=False) as limit:
            env = script_environment(run.env, run.folder, SANDBOX_TMP)
            arguments = await asyncio.to_thread(
                sandbox_arguments, run, limit=limit, path=env.get("PATH")
            )
            command = run.command(run.folder)
            supervisor = functools.partial(
                supervisor_argv, limit=limit, max_memory_bytes=run.max_memory_bytes
            )
            return await run_supervised(
                lambda fd: [bwrap, *arguments, "--", *supervisor(fd), *command],
                run,
                env=env,
            )

    async def _find_bwrap(self) -> str:
        if self._executable is None:
            if sys.platform != "linux":
                raise RunnerUnavailableError(
                    f"the bubblewrap sandbox needs Linux, and this is {sys.platform}: "
                    "run scripts with ScriptPolicy(runner=ProcessRunner()) or an ADK code "
                    "executor instead"
                )
            found = await asyncio.to_thread(shutil.which, self._bwrap)
            if found is None:
                raise RunnerUnavailableError(
                    f"scripts run in a bubblewrap sandbox, but {self._bwrap!r} was not found "
                    f"on PATH: {INSTALL_HINT}"
                )
            if not await asyncio.to_thread(_sizes_tmpfs, found):
                raise RunnerUnavailableError(
                    f"the sandbox caps its scratch space with bubblewrap's --size option, which "
                    f"{found} lacks (it came with bubblewrap 0.8.0): upgrade bubblewrap, or "
                    "run scripts unsandboxed on purpose with ScriptPolicy(runner=ProcessRunner())"
                )
            self._executable = found
        return self._executable

    def __repr__(self) -> str:
        return f"SandboxRunner(bwrap={self._bwrap!r})"


def sandbox_arguments(run: ScriptRun, *, limit: ProcessLimit, path: str | None) -> list[str]:
    """The ``bwrap`` options for one run (blocking: it looks at the host's filesystem)."""
    arguments = [*_NAMESPACES, "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if not run.network:
        arguments.append("--unshare-net")
    bound: list[str] = []
    for system in _SYSTEM:
        if os.path.islink(system):
            arguments += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            arguments += ["--ro-bind", system, system]
            bound.append(system)
    size = ["--size", str(run.max_scratch_bytes), "--tmpfs"]
    arguments += ["--proc", "/proc", "--dev", "/dev", *size, SANDBOX_SHM, "--remount-ro", "/dev"]
    arguments += [*size, SANDBOX_TMP]
    # After /tmp, so that folders under the host's /tmp show through the scratch folder.
    readable = [os.path.realpath(extra) for extra in run.readable]
    for extra in [*_installations(run.interpreter[0], path, bound), *readable, RUNNERS]:
        if not any(is_within(root, extra) for root in bound):
            arguments += ["--ro-bind", extra, extra]
            bound.append(extra)
    arguments += ["--ro-bind", run.folder, run.folder]
    if limit.cgroup is not None:
        arguments += ["--bind", limit.cgroup, limit.cgroup]
    return [*arguments, "--remount-ro", "/", "--chdir", run.folder]


def _sizes_tmpfs(bwrap: str) -> bool:
    """True when this bubblewrap has ``--size`` (blocking)."""
    try:
        usage = subprocess.run(
            [bwrap, "--help"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in usage.stdout


def _installations(interpreter: str, path: str | None, bound: Sequence[str]) -> list[str]:
    """The installations scripts need: this Python's, and the interpreter's when elsewhere."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    found = shutil.which(interpreter, path=path)
    if found is not None:
        real = os.path.realpath(found)
        if not any(is_within(root, real) for root in bound):
            prefixes.add(os.path.dirname(os.path.dirname(real)))
    return sorted(prefixes)
