"""The README tells the truth: its quick start is what CI runs, and its code example works."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.processes import run_python

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", section)


def test_quick_start_is_exactly_two_commands_that_ci_runs() -> None:
    commands = quick_start_commands()
    assert commands == [
        "pip install . && skillfs list",
        'pip install -e ".[test]" && python -m pytest',
    ]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    for command in commands:
        assert command in ci


def test_the_code_example_runs_as_written_on_the_bundled_skills(tmp_path: Path) -> None:
    code = README.split("## In code\n\n```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "example.py"
    script.write_text(code)
    done = run_python(str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "csv-insights - " in done.stdout
    assert "<available_skills>" in done.stdout
    assert "refused:" not in done.stdout
