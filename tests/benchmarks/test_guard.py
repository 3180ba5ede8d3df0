"""The benchmark guard fails a checkout whose cold catalog costs twice an earlier one's."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import guard
from benchmarks.children import HERE

# Imported first by every child whose PYTHONPATH is the slowed checkout: each refresh spends
# as much CPU again as it took, doubling the cold catalog's cost and nothing else.
SLOWER = """
import time

from skills_core._catalog.catalog import SkillCatalog

_refresh = SkillCatalog.refresh


async def refresh(self):
    started = time.process_time()
    report = await _refresh(self)
    until = 2 * time.process_time() - started
    while time.process_time() < until:
        pass
    return report


SkillCatalog.refresh = refresh
"""


def test_a_cold_catalog_twice_as_costly_fails_the_guard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slowed = tmp_path / "slowed"
    slowed.mkdir()
    for package in ("backends", "skills_core"):
        (slowed / package).symlink_to(HERE / package)
    (slowed / "sitecustomize.py").write_text(SLOWER)
    argv = ["--against", str(HERE), "--checkout", str(slowed), "--skills", "200", "--rounds", "3"]
    assert guard.main(argv) == 1
    out = capsys.readouterr().out
    assert "over the limit: measuring again" in out
    assert out.rstrip().endswith(f"FAIL: cold catalog within 1.20x {HERE}")
