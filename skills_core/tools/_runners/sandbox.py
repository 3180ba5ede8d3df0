"""SandboxRunner: each script run in its own set of Linux namespaces, through bubblewrap.

docs/scripts.md ("What a sandboxed script sees") lists what a script reads and writes. A
policy that names no runner gets :func:`default_runner`: the sandbox where it works (probed
once per process), else the process runner, with a warning and the install hint.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence

from backends._paths import is_within
from skills_core._errors import RunnerUnavailableError
from skills_core.tools._policy import ProcessOutcome, ScriptRun, ScriptRunner
from skills_core.tools._runners.process import (
    RUNNERS,
    ProcessLimit,
    ProcessRunner,
    process_limit,
    run_supervised,
    script_environment,
)

logger = logging.getLogger("skillfs.scripts")

SANDBOX_TMP = "/tmp"
"""Where the scratch folder appears inside the sandbox."""
SANDBOX_SHM = "/dev/shm"

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; Arch: pacman -S bubblewrap), or run scripts unsandboxed on purpose with "
    "ScriptPolicy(runner=ProcessRunner())"
)

SANDBOX_ID = 65534
"""The uid and gid a script runs as, whoever runs skillfs (``nobody``'s, never root's)."""

ETC = tuple(
    f"/etc/{name}"
    for name in (
        *("ld.so.cache", "ld.so.conf", "ld.so.conf.d"),  # the dynamic loader
        "alternatives",  # Debian's command links (awk, editor, java, ...)
        *("localtime", "timezone", "os-release"),
        *("nsswitch.conf", "host.conf", "hosts", "resolv.conf", "services", "protocols"),
        # certificate authorities, never the private keys beside them
        *("ssl/certs", "ssl/cert.pem", "ssl/openssl.cnf", "ca-certificates"),
        *("pki/tls/certs", "pki/tls/cert.pem", "pki/tls/openssl.cnf", "pki/ca-trust"),
    )
)
"""What a script sees of the host's ``/etc``, where present; the rest is not mounted."""

ACCOUNTS = {
    "/etc/passwd": f"sandbox:x:{SANDBOX_ID}:{SANDBOX_ID}:skill script:{SANDBOX_TMP}:/bin/sh\n",
    "/etc/group": f"sandbox:x:{SANDBOX_ID}:\n",
}
"""The sandbox's own account files: its user alone."""

_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", *ETC)
_IDS = ("--uid", str(SANDBOX_ID), "--gid", str(SANDBOX_ID))
NAMESPACES = ("--unshare-user", *_IDS, "--unshare-pid", "--unshare-ipc", "--unshare-uts")
"""The namespaces of every sandbox, and its user's ids."""


class SandboxRunner:
    """Runs scripts inside ``bwrap`` (a name or path), isolated as the module docstring says."""

    name = "sandbox"

    def __init__(self, *, bwrap: str = "bwrap") -> None:
        self._bwrap = bwrap
        self._executable: str | None = None

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run the script in a fresh sandbox.

        Raises:
            RunnerUnavailableError: No Linux, no bubblewrap, or one older than 0.8.0.
        """
        bwrap = await self._find_bwrap()
        async with process_limit(run.policy.max_processes, user_wide=False) as limit:
            env = script_environment(run.env, run.folder, SANDBOX_TMP)
            accounts = await asyncio.to_thread(_account_pipes)
            try:
                arguments = await asyncio.to_thread(
                    sandbox_arguments, run, limit=limit, path=env.get("PATH"), accounts=accounts
                )
                return await run_supervised(
                    run,
                    limit,
                    env=env,
                    wrapper=[bwrap, *arguments, "--"],
                    pass_fds=tuple(accounts.values()),
                )
            finally:
                for fd in accounts.values():
                    os.close(fd)

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


def sandbox_arguments(
    run: ScriptRun, *, limit: ProcessLimit, path: str | None, accounts: Mapping[str, int]
) -> list[str]:
    """The ``bwrap`` options for one run (blocking); ``accounts`` maps files to descriptors."""
    arguments = [*NAMESPACES, "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if not run.policy.network:
        arguments.append("--unshare-net")
    bound: list[str] = []
    for system in _SYSTEM:
        if os.path.islink(system):
            arguments += ["--symlink", os.readlink(system), system]
        elif os.path.exists(system):
            arguments += ["--ro-bind", system, system]
            bound.append(system)
    for account, fd in accounts.items():
        arguments += ["--ro-bind-data", str(fd), account]
    size = ["--size", str(run.policy.max_scratch_bytes), "--tmpfs"]
    arguments += ["--proc", "/proc", "--dev", "/dev", *size, SANDBOX_SHM, "--remount-ro", "/dev"]
    arguments += [*size, SANDBOX_TMP]
    # After /tmp, so that folders under the host's /tmp show through the scratch folder.
    readable = [os.path.realpath(extra) for extra in run.policy.readable]
    for extra in [*_installations(run.interpreter[0], path, bound), *readable, RUNNERS]:
        if not any(is_within(root, extra) for root in bound):
            arguments += ["--ro-bind", extra, extra]
            bound.append(extra)
    arguments += ["--ro-bind", run.folder, run.folder]
    if limit.cgroup is not None:  # the file the supervisor joins by, not the limit beside it
        procs = os.path.join(limit.cgroup, "cgroup.procs")
        arguments += ["--bind", procs, procs]
    return [*arguments, "--remount-ro", "/", "--chdir", run.folder]


def _account_pipes() -> dict[str, int]:
    """Pipes holding :data:`ACCOUNTS`, by path: their read ends (blocking)."""
    pipes: dict[str, int] = {}
    for account, text in ACCOUNTS.items():
        read, write = os.pipe()
        pipes[account] = read
        try:
            os.write(write, text.encode())
        finally:
            os.close(write)
    return pipes


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
