"""One script run as one self-contained Python program, for code executors on other machines.

An executor in a container, on GKE or in Vertex AI sees none of the host's files, so the program
carries them: the skill's files (base64, with their executable bit), the run's spec, and the
supervisor's source, which unpacks the skill, runs the script supervised - time limit, scrubbed
environment, nothing left running - and prints one marked result line
(:func:`~skills_core.tools.runners.supervisor.run_portable`). google-adk's own SkillToolset
hands its executor a self-extracting program the same way.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import stat
import sys
import uuid
from dataclasses import dataclass

from backends.base import FileEntry
from backends.paths import is_within
from skills_core.errors import ScriptRunnerError
from skills_core.tools.command import Captured, ProcessOutcome
from skills_core.tools.runners.base import ScriptRun
from skills_core.tools.runners.supervised import SUPERVISOR

PYTHON = "{python}"
"""Stands for the executor's own Python in a carried interpreter command."""


@dataclass(frozen=True, slots=True)
class PortableProgram:
    """A program to hand an executor, and the marker of its result line."""

    code: str
    marker: str


def build_program(run: ScriptRun) -> PortableProgram:
    """The program that runs ``run`` wherever Python runs (blocking: reads the skill).

    Raises:
        ScriptRunnerError: A file leaves the skill folder, or the skill is over its copy limit.
    """
    marker = f"__skillfs_result_{uuid.uuid4().hex}__:"
    spec = {
        "files": _carried_files(run),
        "script": run.script,
        "interpreter": [PYTHON if word == sys.executable else word for word in run.interpreter],
        "arguments": list(run.arguments),
        "env": dict(run.env),
        "time_limit": run.time_limit,
        "max_output_bytes": run.max_output_bytes,
        "marker": marker,
    }
    with open(SUPERVISOR, encoding="utf-8") as source:
        code = source.read()
    return PortableProgram(f"{code}\n\nrun_portable({json.dumps(spec)!r})\n", marker)


def parse_result(program: PortableProgram, stdout: str) -> ProcessOutcome | None:
    """The outcome the program printed, or ``None`` when it printed none."""
    lines = [line for line in stdout.splitlines() if line.startswith(program.marker)]
    if not lines:
        return None
    try:
        result = json.loads(lines[-1][len(program.marker) :])
        streams = [
            Captured(base64.b64decode(result[name]), int(result[f"{name}_total"]))
            for name in ("stdout", "stderr")
        ]
    except (ValueError, KeyError, TypeError, binascii.Error):
        return None
    kind, _, detail = str(result.get("status", "")).partition(" ")
    if kind == "error":
        number, _, message = detail.partition(" ")
        raise OSError(int(number), message)
    timed_out = kind == "timeout"
    exit_code = -9 if timed_out else int(detail) if kind == "exit" else -int(detail or 9)
    return ProcessOutcome(exit_code, streams[0], streams[1], timed_out)


def _carried_files(run: ScriptRun) -> dict[str, tuple[str, bool]]:
    folder = os.path.realpath(run.folder)
    carried: dict[str, tuple[str, bool]] = {}
    total = 0
    for path in run.files:
        real = os.path.realpath(os.path.join(folder, *path.split("/")))
        if not is_within(folder, real) or not os.path.isfile(real):
            raise ScriptRunnerError(f"{path!r} is not a file inside the skill", location=real)
        with open(real, "rb") as handle:
            data = handle.read(run.max_copy_bytes - total + 1)
        total += len(data)
        if total > run.max_copy_bytes:
            message = f"the skill is over the {run.max_copy_bytes}-byte limit for running it"
            raise ScriptRunnerError(message, location=folder)
        mode = stat.S_IMODE(os.stat(real).st_mode)
        executable = FileEntry(path, len(data), mode=mode).executable
        carried[path] = (base64.b64encode(data).decode(), executable)
    return carried
