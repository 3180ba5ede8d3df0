"""docs/adk.md's section on the adk-skills design's API: its code runs as written."""

from __future__ import annotations

from pathlib import Path

from tests.support.processes import ROOT, run_python

EXAMPLES = ROOT / "skills_core" / "examples"
SECTION = (ROOT / "docs" / "adk.md").read_text().split("## The adk-skills design's API", 1)[1]


def test_the_example_discovers_and_builds_the_agent(tmp_path: Path) -> None:
    code = SECTION.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "example.py"
    script.write_text(code.replace('"./skills"', repr(str(EXAMPLES))))
    done = run_python(str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = sorted(path.name for path in EXAMPLES.iterdir() if (path / "SKILL.md").is_file())
    assert done.stdout.splitlines() == [f"{len(names)} skills", f"assistant {names}"]
