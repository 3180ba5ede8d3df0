"""ScriptPolicy: whether, how and where skill scripts may run (docs/scripts.md).

Scripts are off unless a policy is given. Interpreters come from the policy, by extension or
by the name a ``#!`` line gives (never the path the file names); every refusal says what to
allow.
"""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, runtime_checkable

from backends._errors import echoed
from backends._limits import KIB, MIB

DEFAULT_MAX_PROCESSES = 256
"""Processes a run may have at once: bounds fork storms."""

DEFAULT_MAX_SCRATCH_BYTES = 256 * MIB
"""Bytes a run may write to its scratch space (a tmpfs, so memory, in the sandbox)."""

DEFAULT_ENV_ALLOW = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "SYSTEMROOT",
)
"""Variables passed through from the host; everything else (keys, tokens) is dropped."""


@dataclass(frozen=True, slots=True)
class ScriptPolicy:
    """Permission and limits for running skill scripts.

    Attributes:
        timeout: Seconds before the script's whole process tree is killed.
        interpreters: Command prefix by lowercase file extension (``".py"``).
        shebangs: Command prefix by the interpreter a ``#!`` line names (``"bash"``).
        env_allow: Host environment variables the script may see.
        env: Extra variables set for every run (they win over the host's).
        max_output_bytes: Bytes of stdout, and of stderr, returned to the model.
        max_workspace_bytes: Largest total size of a remote skill copied to run locally.
        confirm: Ask the user to confirm each run (adapters with a confirmation flow); a run
            of content the catalog's trust ``approvals`` hold runs without asking.
        max_processes: Most processes one run may have at once (``None``: no limit of ours).
        max_scratch_bytes: The sandbox's ``/tmp`` and ``/dev/shm`` tmpfs sizes; the process
            runner's ``RLIMIT_FSIZE``.
        max_memory_bytes: ``RLIMIT_AS`` of each process of a run (``None``: no limit of ours).
        network: Let sandboxed scripts use the network.
        readable: Host paths sandboxed scripts may read besides their skill and the system.
        runner: What runs scripts and isolates them; ``None``: the bubblewrap sandbox where it
            works (Linux with ``bwrap``), else the process runner, with a warning.
        code_tools: The agent's own tools that run code (``bash``), refused while the model
            acts on a skill whose scripts need approval (docs/adk.md).

    ``ScriptPolicy.DEFAULT_INTERPRETERS`` and ``ScriptPolicy.DEFAULT_SHEBANGS`` are the
    defaults, to extend: ``ScriptPolicy(shebangs={**ScriptPolicy.DEFAULT_SHEBANGS, "node":
    ("node",)})``.
    """

    DEFAULT_INTERPRETERS: ClassVar[Mapping[str, tuple[str, ...]]] = MappingProxyType(
        {".py": (sys.executable,), ".sh": ("bash",)}
    )
    DEFAULT_SHEBANGS: ClassVar[Mapping[str, tuple[str, ...]]] = MappingProxyType(
        {
            "bash": ("bash",),
            "sh": ("sh",),
            "python": (sys.executable,),
            "python3": (sys.executable,),
        }
    )

    timeout: float = 30.0
    interpreters: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: ScriptPolicy.DEFAULT_INTERPRETERS
    )
    env_allow: tuple[str, ...] = DEFAULT_ENV_ALLOW
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    max_output_bytes: int = 64 * KIB
    max_workspace_bytes: int = 50 * MIB
    confirm: bool = False
    shebangs: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: ScriptPolicy.DEFAULT_SHEBANGS
    )
    max_processes: int | None = DEFAULT_MAX_PROCESSES
    max_scratch_bytes: int = DEFAULT_MAX_SCRATCH_BYTES
    max_memory_bytes: int | None = None
    network: bool = False
    readable: tuple[str, ...] = ()
    runner: ScriptRunner | None = None
    code_tools: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError(f"ScriptPolicy.timeout must be positive, not {self.timeout}")
        for name in ("max_processes", "max_scratch_bytes", "max_memory_bytes"):
            limit = getattr(self, name)
            if limit is not None and limit < 1:
                raise ValueError(f"ScriptPolicy.{name} must be positive, not {limit}")
        if isinstance(self.code_tools, str):
            raise ValueError(f"ScriptPolicy.code_tools must be tool names, not {self.code_tools!r}")
        for extension, command in self.interpreters.items():
            if not extension.startswith(".") or extension != extension.lower() or not command:
                raise ValueError(
                    f"ScriptPolicy.interpreters: {extension!r} must map a lowercase "
                    "'.ext' to a non-empty command"
                )
        for name, command in self.shebangs.items():
            if not name or "/" in name or not command:
                raise ValueError(
                    f"ScriptPolicy.shebangs: {name!r} must map an interpreter name (no '/') "
                    "to a non-empty command"
                )

    def interpreter(self, path: str) -> tuple[str, ...] | None:
        """The command prefix that runs ``path``, or ``None`` when its type is not allowed."""
        return self.interpreters.get(posixpath.splitext(path)[1].lower())

    def command_by_shebang(self, path: str, head: bytes) -> tuple[str, ...] | str:
        """The command for a script by its first bytes' ``#!`` line, or why it cannot run."""
        words = shebang(head)
        if words is None:
            extension = posixpath.splitext(path)[1].lower() or "(none)"
            allowed = ", ".join(sorted(self.interpreters)) or "none"
            return (
                f"no interpreter is configured for {path!r}: its extension {extension} is not "
                f"one of ScriptPolicy.interpreters (allowed: {allowed}) and it has no #! line; "
                "allow it with ScriptPolicy(interpreters={**ScriptPolicy.DEFAULT_INTERPRETERS, "
                "'.ext': ('program',)})"
            )
        name = posixpath.basename(words[0])
        command = self.shebangs.get(name)
        if command is None:
            allowed = ", ".join(sorted(self.shebangs)) or "none"
            return (
                f"{path!r} asks for {name!r} in its #! line, which ScriptPolicy.shebangs does "
                f"not allow (allowed: {allowed}); allow it with "
                f"ScriptPolicy(shebangs={{**ScriptPolicy.DEFAULT_SHEBANGS, {name!r}: ({name!r},)}})"
            )
        return (*command, *words[1:])

    def environment(self) -> dict[str, str]:
        """The scrubbed environment a script runs with."""
        scrubbed = {name: os.environ[name] for name in self.env_allow if name in os.environ}
        scrubbed.update(self.env)
        scrubbed.setdefault("PYTHONIOENCODING", "utf-8")
        return scrubbed


HEAD_BYTES = 512
"""Bytes read from a script to find its ``#!`` line (Linux reads 256)."""


def shebang(head: bytes) -> tuple[str, ...] | None:
    """The interpreter and its arguments from a ``#!`` line, ``env`` unwrapped; else ``None``."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", errors="replace")
    words = line.strip().split()
    if words and posixpath.basename(words[0]) == "env":
        words = words[1:]
        if words and words[0] == "-S":
            words = words[1:]
    if not words or words[0].startswith("-"):
        return None
    return tuple(words)


def script_arguments(args: Any) -> list[str]:
    """Turn the model's ``args`` into an argument list (never a shell string).

    A list is the arguments; a mapping becomes long options (``{"pages": 3, "verbose": true}``
    -> ``--pages 3 --verbose``; ``false``/``null`` omit it).

    Raises:
        ValueError: ``args`` is neither, or holds nested values.
    """
    if args is None:
        return []
    if isinstance(args, Sequence) and not isinstance(args, str | bytes):
        return [_scalar(item, "args") for item in args]
    if isinstance(args, Mapping):
        argv: list[str] = []
        for key, value in args.items():
            if not isinstance(key, str) or not key or key.startswith("-"):
                raise ValueError(f"option names must be plain strings, not {echoed(str(key))!r}")
            if value is None or value is False:
                continue
            argv.append(f"--{key}")
            if value is not True:
                argv.append(_scalar(value, key))
        return argv
    raise ValueError("'args' must be a list of strings or an object of options")


def _scalar(value: Any, name: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        text = str(value)
        if "\x00" in text:
            raise ValueError(f"{echoed(name)!r} holds a NUL byte")
        return text
    raise ValueError(f"{echoed(name)!r} must be a string or number, not {type(value).__name__}")


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """One checked script run: script found, interpreter allowed, arguments plain strings.

    ``folder`` (the skill's, the working directory) holds ``script`` and ``files`` (every file
    of the skill: what a runner copies elsewhere) at these POSIX paths; ``interpreter`` is the
    command prefix; ``policy`` the limits a runner applies where it can.
    """

    folder: str
    script: str
    interpreter: tuple[str, ...]
    arguments: tuple[str, ...]
    files: tuple[str, ...]
    policy: ScriptPolicy
    env: Mapping[str, str]

    def command(self, folder: str) -> list[str]:
        """The full command line when the skill sits in ``folder``."""
        return [*self.interpreter, posixpath.join(folder, self.script), *self.arguments]


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
    """How a command ended: exit code (``-N`` for signal N), capped output, timed out or not."""

    exit_code: int
    stdout: Captured
    stderr: Captured
    timed_out: bool


@runtime_checkable
class ScriptRunner(Protocol):
    """Decides only *where and how isolated* a :class:`ScriptRun` runs, and reports how it ended.

    ``SandboxRunner`` (bubblewrap), ``ProcessRunner`` and ADK's ``CodeExecutorRunner`` ship.
    """

    @property
    def name(self) -> str:
        """A short name for messages and logs (``"sandbox"``, ``"process"``)."""

    async def run(self, run: ScriptRun) -> ProcessOutcome:
        """Run ``run`` to its end, time limit or cancellation; nothing it started outlives it.

        Raises:
            RunnerUnavailableError: The runner cannot work here (what to install is named).
            ScriptRunnerError: The runner failed to run the script.
            OSError: The interpreter could not be started.
        """
