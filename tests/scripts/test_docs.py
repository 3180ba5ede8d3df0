"""docs/scripts.md tells the truth: its Python blocks run, on the bundled example skills."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.processes import ROOT, run_python

PAGE = ROOT / "docs" / "scripts.md"
EXAMPLES = ROOT / "skills_core" / "examples"


def test_the_python_blocks_run(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.+?)```", PAGE.read_text(), flags=re.DOTALL)
    assert len(blocks) == 3
    script = tmp_path / "page.py"
    script.write_text("\n".join(blocks).replace('"./skills"', repr(str(EXAMPLES))))
    done = run_python(str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 usage: profile_csv.py")
