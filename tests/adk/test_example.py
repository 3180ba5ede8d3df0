"""The offline example in examples/ runs and answers from its skill's script."""

from __future__ import annotations

import pytest

from examples.adk_skills_offline import main
from tests.support.processes import ROOT, run_python


async def test_offline_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert await main() == "The invoice total, with tax, is 51.00."
    printed = capsys.readouterr().out
    assert "-> run_skill_script(" in printed


def test_the_example_prints_no_warning_a_user_cannot_act_on() -> None:
    # ADK logged "Skipping missing token usage metadata ..." once per model call: 5 lines.
    done = run_python("-m", "examples.adk_skills_offline", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("The invoice total, with tax, is 51.00.\n")
    assert done.stderr == ""
