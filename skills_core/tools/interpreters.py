"""Which command runs a skill script: by its extension, else by its ``#!`` line.

Collections ship extensionless scripts (``scripts/task-brief`` starting ``#!/usr/bin/env
bash``). Such a file runs when the interpreter its ``#!`` line names is one the policy allows
(:attr:`ScriptPolicy.shebangs`); the policy's command is used, never the path the file names.
Every refusal says what to allow.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skills_core.tools.policy import ScriptPolicy

HEAD_BYTES = 512
"""Bytes read from a script to find its ``#!`` line (Linux reads 256)."""


def shebang(head: bytes) -> tuple[str, ...] | None:
    """The interpreter and its arguments from a ``#!`` line, ``env`` unwrapped; else ``None``.

    ``#!/usr/bin/env -S python3 -u`` gives ``("python3", "-u")``; ``#!/bin/bash -e`` gives
    ``("/bin/bash", "-e")``.
    """
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


def command_by_shebang(policy: ScriptPolicy, path: str, head: bytes) -> tuple[str, ...] | str:
    """The command prefix for a script the extensions do not cover, or why it cannot run."""
    words = shebang(head)
    if words is None:
        extension = posixpath.splitext(path)[1].lower() or "(none)"
        allowed = ", ".join(sorted(policy.interpreters)) or "none"
        return (
            f"no interpreter is configured for {path!r}: its extension {extension} is not one "
            f"of ScriptPolicy.interpreters (allowed: {allowed}) and it has no #! line; allow "
            "it with ScriptPolicy(interpreters={**DEFAULT_INTERPRETERS, '.ext': ('program',)})"
        )
    name = posixpath.basename(words[0])
    command = policy.shebangs.get(name)
    if command is None:
        allowed = ", ".join(sorted(policy.shebangs)) or "none"
        return (
            f"{path!r} asks for {name!r} in its #! line, which ScriptPolicy.shebangs does not "
            f"allow (allowed: {allowed}); allow it with "
            f"ScriptPolicy(shebangs={{**DEFAULT_SHEBANGS, {name!r}: ({name!r},)}})"
        )
    return (*command, *words[1:])
