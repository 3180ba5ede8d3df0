"""The runner a policy gets when it names none: the sandbox where it works, else a process.

"Works" is measured, not assumed: ``bwrap`` must be on PATH *and* able to create the namespaces
the sandbox uses (unprivileged user namespaces can be switched off, e.g. by Docker's default
seccomp profile) and a size-limited tmpfs (``--size``: bubblewrap 0.8.0 or newer, not
setuid). The probe runs once per process. Falling back to the process runner is logged as a
warning with the install hint; a policy that names :class:`SandboxRunner` never falls back.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import shutil
import subprocess
import sys

from skills_core.tools.runners.base import ScriptRunner
from skills_core.tools.runners.process import ProcessRunner
from skills_core.tools.runners.sandbox import INSTALL_HINT, NAMESPACES, SandboxRunner

logger = logging.getLogger("skillfs.scripts")

_PROBE_SECONDS = 10


async def default_runner() -> ScriptRunner:
    """:class:`SandboxRunner` when bubblewrap works here, else :class:`ProcessRunner`."""
    if await asyncio.to_thread(sandbox_works):
        return SandboxRunner()
    logger.warning(
        "skill scripts run WITHOUT a sandbox (same user, same network, the agent's processes "
        "visible): bubblewrap is not available, older than 0.8.0, or cannot create namespaces "
        "here; %s",
        INSTALL_HINT,
    )
    return ProcessRunner()


@functools.cache
def sandbox_works() -> bool:
    """True when ``bwrap`` exists and can start a sandbox like the runner's (blocking, cached)."""
    if sys.platform != "linux":
        return False
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, *NAMESPACES, "--unshare-net", "--ro-bind", "/", "/"]
    try:
        result = subprocess.run(
            [*probe, "--proc", "/proc", "--size", "4096", "--tmpfs", "/tmp", "true"],
            capture_output=True,
            timeout=_PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0
