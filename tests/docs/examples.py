"""The examples of the user pages, read and run by sybil: Python blocks and console sessions.

A page's examples run top to bottom in one workspace, the reader's home folder (``./skills``
holds the bundled examples; see ``test_code_blocks.py``), so a later example may use what an
earlier one made: the Python blocks share one namespace, and a console session may read the
bundle an earlier session wrote.

- A ```` ```python ```` block runs as written (``await`` only inside functions).
- A ```` ```console ```` block is a shell session: each ``$ `` line runs in bash (``skillfs``
  is this checkout's CLI), and the lines after it, up to the next ``$ `` line, are what it
  prints, standard output and standard error as a terminal interleaves them. ``echo $?``
  gives the exit code of the session's command before. Output is compared exactly once both
  sides went through :data:`VARYING`, and after :func:`shown` put the workspace and the package
  where a reader has them; a line that is only ``…`` stands for any number of lines.
  Tables are cut at :data:`COLUMNS` (``COLUMNS=200 skillfs ...`` widens one). Each ``$ `` line
  is a bash of its own: ``VAR=value skillfs ...``, not ``export``.
- Files a reader would have made by hand (a folder of broken skills) are made by sybil's
  ``<!-- invisible-code-block: python ... -->`` before the sessions that use them.
- A block that cannot run offline (installing from the package index, a server that runs
  until Ctrl-C) follows ``<!-- skip: next "why" -->``, sybil's own directive, with its reason.

To write a session, write the ``$ `` lines alone and run ``pytest tests/docs -k PAGE``: the
failure shows what each command printed, as the page must show it.

``python -m tests.docs.examples PAGE`` runs PAGE's examples in the current folder. Each page
runs in a process of its own: a page may register an fsspec implementation, a backend scheme
or a tracer provider for the whole process.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import unittest
from collections.abc import Iterator
from pathlib import Path

from sybil import Example, Sybil
from sybil.example import SybilFailure
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[2]
HOME = "/home/me"
"""The workspace, as the pages show it: the reader's home folder."""
PACKAGE = "/…/site-packages/skills_core"
"""This checkout's ``skills_core``, as the pages show an installed package."""
COLUMNS = "100"
"""The terminal width the sessions' tables are cut to."""
VARYING = {
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d)?Z?": "<date and time>",
    r"\[\d\d:\d\d:\d\d\]": "[<time>]",
    r"127\.0\.0\.1:\d+": "127.0.0.1:<port>",
    r"ed25519:[0-9a-f]{16}": "ed25519:<key id>",
    r"\(\d+\.\d KiB\)|\d+(?:\.\d KiB| B) +(?=strict|lenient)": "<cache size>",
}
"""What differs from run to run, replaced on both sides: times, ports, new keys' ids, and the
catalog cache's sizes (its rows hold the workspace's paths)."""
_PROMPT = "$ "
_ANY_LINES = "…"
_EXIT_CODE = "console exit code"


def shown(output: str, workspace: str) -> str:
    """``output`` with the workspace and the package where the pages show them."""
    return output.replace(str(ROOT / "skills_core"), PACKAGE).replace(workspace, HOME)


def normalised(text: str) -> str:
    """``text`` with every :data:`VARYING` part replaced."""
    for pattern, replacement in VARYING.items():
        text = re.sub(pattern, replacement, text)
    return text


def session(text: str) -> list[tuple[str, str]]:
    """The commands of a console block, each with the output shown after it."""
    steps: list[tuple[str, str]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(_PROMPT):
            steps.append((line[len(_PROMPT) :].rstrip("\n"), ""))
        elif steps:
            steps[-1] = (steps[-1][0], steps[-1][1] + line)
        else:
            raise ValueError(f"a console block starts with a '{_PROMPT}' line: {line!r}")
    return steps


def matches(expected: str, output: str) -> bool:
    """``output`` is ``expected``, a ``…`` line standing for any number of lines."""
    pattern = "".join(
        r"(?:.*\n)*?" if line.rstrip("\n") == _ANY_LINES else re.escape(line)
        for line in normalised(expected).splitlines(keepends=True)
    )
    return re.fullmatch(pattern, normalised(output)) is not None


def outputs(example: Example) -> Iterator[tuple[str, str, str]]:
    """Run a console block's commands in order: each, with what the page shows and it printed."""
    workspace = os.getcwd()
    code = example.namespace.get(_EXIT_CODE, 0)
    skillfs = f'skillfs() {{ {shlex.quote(sys.executable)} -m skills_core.cli "$@"; }}'
    env = {**os.environ, "COLUMNS": COLUMNS, "PYTHONUNBUFFERED": "1"}
    for command, expected in session(example.parsed):
        done = subprocess.run(
            ["bash", "-c", f"{skillfs}\n(exit {code})\n{command}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # one pipe, unbuffered: the order a terminal shows
            env=env,
            text=True,
            timeout=120,
            check=False,
        )
        code = example.namespace[_EXIT_CODE] = done.returncode
        yield command, expected, shown(done.stdout, workspace)


def run_session(example: Example) -> str | None:
    """Run a console block; each command whose output the page does not show, or ``None``."""
    differences = [
        f"$ {command}\n--- the page shows:\n{expected}--- it printed:\n{output}"
        for command, expected, output in outputs(example)
        if not matches(expected, output)
    ]
    return "\n".join(differences) or None


SYBIL = Sybil(
    parsers=[
        PythonCodeBlockParser(),
        CodeBlockParser(language="console", evaluator=run_session),
        SkipParser(),
    ],
    patterns=["*.md"],
)


def run_page(page: Path) -> int:
    """Evaluate the page's examples in order, up to the first failure; 1 if there is one."""
    for example in SYBIL.parse(page).examples():
        try:
            example.evaluate()
        except unittest.SkipTest as skipped:
            print(f"{page}:{example.line}: skipped: {skipped}")
        except SybilFailure as failure:
            print(failure, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(run_page(Path(sys.argv[1])))
