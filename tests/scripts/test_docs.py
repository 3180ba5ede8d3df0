"""docs/scripts.md tells the truth: its Python blocks run, on the bundled example skills."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "scripts.md"
EXAMPLES = ROOT / "skills_core" / "examples"


def test_the_python_blocks_run(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.+?)```", PAGE.read_text(), flags=re.DOTALL)
    assert len(blocks) == 3
    script = tmp_path / "page.py"
    script.write_text("\n".join(blocks).replace('"./skills"', repr(str(EXAMPLES))))
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 usage: profile_csv.py")
