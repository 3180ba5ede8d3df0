"""The offline example in examples/ runs and answers from its skill's script."""

from __future__ import annotations

import pytest

from examples.adk_skills_offline import main


async def test_offline_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert await main() == "The invoice total, with tax, is 51.00."
    printed = capsys.readouterr().out
    assert "-> run_skill_script(" in printed
