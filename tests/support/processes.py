"""Run Python in a child process that imports this checkout, as a reader of the docs would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_python(
    *arguments: str, cwd: Path, path: Sequence[Path] = (), env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python ARGUMENTS`` in ``cwd``, ``path`` and this checkout importable; output as text.

    ``env`` adds variables to this process's environment.
    """
    importable = os.pathsep.join(map(str, [*path, ROOT]))
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=cwd,
        env={**os.environ, **(env or {}), "PYTHONPATH": importable},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
