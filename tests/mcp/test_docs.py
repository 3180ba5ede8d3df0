"""docs/mcp.md's runnable example runs: a client of `skillfs serve` over stdio."""

from __future__ import annotations

import re

from tests.mcp.conftest import ROOT
from tests.support.processes import run_python

DOC = (ROOT / "docs" / "mcp.md").read_text()


def test_the_runnable_example_reads_skills_over_mcp() -> None:
    (code,) = re.findall(r"```python\n(.+?)```", DOC, re.DOTALL)  # "python no-run" blocks skip
    done = run_python("-c", code, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "csv-insights" in lines[0]
    assert lines[1] == "mcp[examples]:skill://csv-insights/SKILL.md"
    assert lines[2].endswith("bytes, verified against their digest")
