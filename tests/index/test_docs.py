"""docs/index-and-publishing.md's runnable example runs, and costs what the page says."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.support.processes import run_python

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "index-and-publishing.md").read_text()


def test_the_example_publishes_serves_and_reads_back(tmp_path: Path) -> None:
    (code,) = re.findall(r"(?<!-->\n\n)```python\n(.+?)```", DOC, re.DOTALL)  # not skipped
    shutil.copytree(ROOT / "skills_core" / "examples", tmp_path / "skills")  # the reader's
    done = run_python("-c", code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = re.search(r"```\n\n```\n(.+?)```", DOC.split(code, 1)[1], re.DOTALL)
    assert printed is not None
    assert done.stdout == printed.group(1)
    served = [
        (re.sub(r"-[0-9a-f]{64}\.zip$", "-<digest>.zip", path), status)
        for path, status in re.findall(r'"GET (\S+) HTTP/1.1" (\d+)', done.stderr)
    ]
    assert served == [
        ("/.well-known/agent-skills/index.json", "200"),
        ("/.well-known/agent-skills/index.json", "304"),
        ("/.well-known/agent-skills/csv-insights-<digest>.zip", "200"),
    ]
