"""Run one command so that no process it starts outlives it: a stdlib-only program.

Started as ``python -I -S -c LAUNCH FOLDER [options] -- COMMAND...``, or embedded by the ADK
runner, so it imports only the standard library and runs nothing at import. As a child
subreaper it adopts every orphan the command leaves; when the command exits or it is told to
stop (a signal, its time limit, its parent's death) it SIGKILLs and reaps every descendant,
then writes ``exit N``, ``signal N`` or ``error ERRNO MESSAGE`` to ``--status-fd``. Limits
(``--cgroup``, ``--nproc``, ``--fsize``, ``--as``) apply before the command starts.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType

LAUNCH = "import sys;sys.path[:0]=sys.argv[1:2];import supervisor as s;s.main(sys.argv[2:])"
"""``python -c`` code that runs this file's :func:`main` with the arguments after its folder."""

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM)
_SWEEP_PAUSE = 0.002


class _Stop(Exception):
    """Raised out of a wait when the supervisor must stop the command."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.timed_out = number == signal.SIGALRM


def main(argv: Sequence[str]) -> None:
    """Parse ``[--status-fd N] [--nproc N] [--fsize N] [--as N] [--cgroup DIR] [--parent PID]``.

    The command follows a ``--``.
    """
    options: dict[str, str] = {}
    args = list(argv)
    while args and args[0] != "--":
        name, value = args[0], args[1]
        options[name.removeprefix("--")] = value
        args = args[2:]
    numbers = {name: int(value) for name, value in options.items() if name != "cgroup"}
    status_fd = numbers.get("status-fd")
    if status_fd is not None:
        os.set_inheritable(status_fd, False)  # the command never sees it
    status = supervise(
        args[1:],
        nproc=numbers.get("nproc"),
        fsize=numbers.get("fsize"),
        address_space=numbers.get("as"),
        cgroup=options.get("cgroup"),
        parent=numbers.get("parent"),
    )
    if status_fd is not None:
        os.write(status_fd, status.encode() + b"\n")


def run_portable(spec_text: str) -> None:
    """Unpack a skill, run one of its scripts supervised, print one result line (ADK executors).

    ``spec_text`` is the JSON :func:`skills_core.adk._executor.build_program` writes; the line is
    ``marker`` and JSON: ``status``, base64 ``stdout``/``stderr`` and their totals.
    """
    import base64
    import json
    import shutil
    import tempfile

    spec = json.loads(spec_text)
    root = tempfile.mkdtemp(prefix="skillfs-skill-")
    scratch = tempfile.mkdtemp(prefix="skillfs-scratch-")
    try:
        for path, (content, executable) in spec["files"].items():
            target = os.path.join(root, *path.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(base64.b64decode(content))
            os.chmod(target, 0o555 if executable else 0o444)
        env = dict(spec["env"], TMPDIR=scratch, TMP=scratch, TEMP=scratch, HOME=scratch)
        env["PYTHONPATH"] = root
        interpreter = [
            sys.executable if word == "{python}" else word for word in spec["interpreter"]
        ]
        command = [*interpreter, os.path.join(root, spec["script"]), *spec["arguments"]]
        limit = spec["max_output_bytes"]
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            status = supervise(
                command,
                time_limit=spec["time_limit"],
                cwd=root,
                env=env,
                stdout=out.fileno(),
                stderr=err.fileno(),
            )
            streams: dict[str, str | int] = {}
            for name, stream in (("stdout", out), ("stderr", err)):
                total = stream.tell()
                stream.seek(0)
                streams[name] = base64.b64encode(stream.read(limit)).decode()
                streams[f"{name}_total"] = total
        print(spec["marker"] + json.dumps({"status": status, **streams}), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


def supervise(
    command: Sequence[str],
    *,
    nproc: int | None = None,
    fsize: int | None = None,
    address_space: int | None = None,
    cgroup: str | None = None,
    parent: int | None = None,
    time_limit: float | None = None,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    stdout: int | None = None,
    stderr: int | None = None,
) -> str:
    """Run ``command`` to its end and kill everything it left; return the status line."""
    if cgroup is not None:
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as procs:
            procs.write(str(os.getpid()))
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    # A stop arrives only inside the try below, where it is handled (held until then).
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    for number in _STOP_SIGNALS:
        signal.signal(number, _stop)
    if parent is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # it died before the death signal was armed
            return "signal 9"
    if time_limit is not None:
        signal.setitimer(signal.ITIMER_REAL, time_limit)
    errors_read, errors_write = os.pipe()  # close-on-exec: EOF once the command started
    child = os.fork()
    if child == 0:  # pragma: no cover - the child execs or exits
        _exec(
            command,
            limits={"RLIMIT_NPROC": nproc, "RLIMIT_FSIZE": fsize, "RLIMIT_AS": address_space},
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=stderr,
            errors=errors_write,
        )
    os.close(errors_write)
    failure = ""
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        failure = _read_all(errors_read)
        _, wait_status = os.waitpid(child, 0)
        if os.WIFSIGNALED(wait_status):
            status = f"signal {os.WTERMSIG(wait_status)}"
        else:
            status = f"exit {os.waitstatus_to_exitcode(wait_status)}"
    except _Stop as stop:
        status = "timeout" if stop.timed_out else "signal 9"
    for number in _STOP_SIGNALS:  # nothing may interrupt the sweep
        signal.signal(number, signal.SIG_IGN)
    _kill_descendants(child)
    return f"error {failure}" if failure else status


def _exec(
    command: Sequence[str],
    *,
    limits: dict[str, int | None],
    cwd: str | None,
    env: dict[str, str] | None,
    stdout: int | None,
    stderr: int | None,
    errors: int,
) -> None:  # pragma: no cover - runs in the forked child
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # a held stop ends it here
        os.setpgid(0, 0)
        for source, target in ((stdout, 1), (stderr, 2)):
            if source is not None:
                os.dup2(source, target)
        if any(value is not None for value in limits.values()):
            import resource

            for name, value in limits.items():
                if value is not None:
                    resource.setrlimit(getattr(resource, name), (value, value))
        if cwd is not None:
            os.chdir(cwd)
        if env is None:
            os.execvp(command[0], list(command))
        os.execvpe(command[0], list(command), env)
    except OSError as exc:
        os.write(errors, f"{exc.errno or 0} {command[0]}: {exc.strerror or exc}".encode())
    finally:
        os._exit(127)


def _kill_descendants(child: int) -> None:
    """SIGKILL and reap every descendant until the supervisor has no child left."""
    _kill(child, group=True)  # where /proc cannot be read, the group at least
    me = os.getpid()
    while _reap():
        for pid in _descendants(me):
            _kill(pid)
        time.sleep(_SWEEP_PAUSE)


def _kill(pid: int, *, group: bool = False) -> None:
    try:  # noqa: SIM105 - importing contextlib would slow the supervisor's start
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap() -> bool:
    """Reap every exited child; False once no child is left at all."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _descendants(root: int) -> list[int]:
    """Every process below ``root``, from the parent pids in ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
    if not os.path.isdir("/proc"):
        return []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    pending = [root]
    while pending:
        below = children.get(pending.pop(), [])
        found += below
        pending += below
    return found


def _read_all(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode(errors="replace")


def _prctl(option: int, value: int) -> None:
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _stop(number: int, frame: FrameType | None) -> None:
    raise _Stop(number)
