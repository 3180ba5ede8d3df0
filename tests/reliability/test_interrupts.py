"""Ctrl-C in the first moments of a command ends it quietly (#8.10).

``skillfs watch`` printed a KeyboardInterrupt traceback when Ctrl-C came while the command's
modules were still being imported. Here a real SIGINT is sent to the process at chosen
moments of its start-up -- as a given module begins to import -- so each moment is hit
exactly, whatever the machine's load. (Before ``skills_core`` itself is imported, Python
prints its own message for an interrupt; no program can prevent that.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skills_core.cli._source import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]

# Runs the CLI as `python -m skills_core.cli` does, sending SIGINT to itself as soon as the
# named module starts importing (from whichever thread imports it).
_INTERRUPTED_RUN = """
import os, runpy, signal, sys

class Interrupt:
    def __init__(self, target):
        self.target = target

    def find_spec(self, name, path=None, target=None):
        if name == self.target:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt(sys.argv.pop(1)))
runpy.run_module("skills_core.cli", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize(
    "moment",
    [
        "skills_core.cli._app",  # the entry point
        "argparse",  # building the parser
        "skills_core.cli._commands.reading",  # the command's module
        "skills_core._catalog.catalog",  # the catalog and backends
        "skills_core._catalog.loading",  # the refresh and the watcher, imported with the catalog
    ],
)
def test_ctrl_c_while_watch_starts_prints_no_traceback(moment: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_RUN, moment, "watch", str(EXAMPLES)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in result.stderr
    assert "KeyboardInterrupt" not in result.stderr
    assert result.stdout == ""
    assert result.returncode in (0, 130), result.stderr
