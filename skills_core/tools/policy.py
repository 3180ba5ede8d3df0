"""ScriptPolicy: whether and how skill scripts may run.

Scripts are off unless a policy is given. A policy names the interpreter for each file
extension (``.py`` with the running Python, ``.sh`` with bash; anything else is refused unless
configured), the environment variables a script may see, its time limit and output caps.
"""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from backends.limits import KIB, MIB

DEFAULT_INTERPRETERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {".py": (sys.executable,), ".sh": ("bash",)}
)
"""Interpreters by extension: the script path is appended, then its arguments."""

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


def _default_interpreters() -> Mapping[str, tuple[str, ...]]:
    return DEFAULT_INTERPRETERS


def _no_env() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ScriptPolicy:
    """Permission and limits for running skill scripts.

    Attributes:
        timeout: Seconds before the script's whole process tree is killed.
        interpreters: Command prefix by lowercase file extension (``".py"``).
        env_allow: Host environment variables the script may see.
        env: Extra variables set for every run (they win over the host's).
        max_output_bytes: Bytes of stdout, and of stderr, returned to the model.
        max_workspace_bytes: Largest total size of a remote skill copied to run locally.
        confirm: Ask the user to confirm each run (adapters with a confirmation flow).
    """

    timeout: float = 30.0
    interpreters: Mapping[str, tuple[str, ...]] = field(default_factory=_default_interpreters)
    env_allow: tuple[str, ...] = DEFAULT_ENV_ALLOW
    env: Mapping[str, str] = field(default_factory=_no_env)
    max_output_bytes: int = 64 * KIB
    max_workspace_bytes: int = 50 * MIB
    confirm: bool = False

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError(f"ScriptPolicy.timeout must be positive, not {self.timeout}")
        for extension, command in self.interpreters.items():
            if not extension.startswith(".") or extension != extension.lower() or not command:
                raise ValueError(
                    f"ScriptPolicy.interpreters: {extension!r} must map a lowercase "
                    "'.ext' to a non-empty command"
                )

    def interpreter(self, path: str) -> tuple[str, ...] | None:
        """The command prefix that runs ``path``, or ``None`` when its type is not allowed."""
        return self.interpreters.get(posixpath.splitext(path)[1].lower())

    def environment(self) -> dict[str, str]:
        """The scrubbed environment a script runs with."""
        scrubbed = {name: os.environ[name] for name in self.env_allow if name in os.environ}
        scrubbed.update(self.env)
        scrubbed.setdefault("PYTHONIOENCODING", "utf-8")
        return scrubbed


def script_arguments(args: Any) -> list[str]:
    """Turn the model's ``args`` into an argument list (never a shell string).

    A list is taken as the arguments themselves; a mapping becomes long options
    (``{"pages": 3, "verbose": true}`` -> ``--pages 3 --verbose``; ``false``/``null`` omit it).

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
                raise ValueError(f"option names must be plain strings, not {key!r}")
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
            raise ValueError(f"{name!r} holds a NUL byte")
        return text
    raise ValueError(f"{name!r} must be a string or number, not {type(value).__name__}")
