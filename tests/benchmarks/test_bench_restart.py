"""The restart benchmark compares this checkout's restarts with another's in the same run."""

from __future__ import annotations

from pathlib import Path

from benchmarks import bench_restart
from benchmarks.children import HERE
from benchmarks.corpus import write_corpus

SEARCHES = ("held", "save", "warm", "again")


def test_another_checkout_gets_rows_of_its_own(tmp_path: Path) -> None:
    root = write_corpus(tmp_path / "corpus", 50)
    checkouts = {bench_restart.THIS: HERE, "before": HERE}
    results = bench_restart.measure(root, checkouts, rounds=1, repeats=1)
    cases = ("cold", "coldsave", "warm", "nochange", *(f"search{k}" for k in SEARCHES))
    assert set(results) == {*cases, *(f"{case} @ before" for case in cases), "read", "stat"}
    lines = bench_restart.table(50, results).splitlines()
    before = [line for line in lines if line.startswith("| in-process no-change refresh")]
    assert [line.split(" | ")[0] for line in before] == [
        "| in-process no-change refresh",
        "| in-process no-change refresh (before)",
    ]
    assert all(line.split(" | ")[3] == "1.00" for line in before)  # each against its own
