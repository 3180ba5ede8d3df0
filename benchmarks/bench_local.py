"""Local folder: skillfs against google-adk's loaders, skills-ref and the raw-I/O floors.

Run: ``python -m benchmarks.bench_local [--sizes 1000 10000] [--runs 5]``. Prints one table per
corpus size with medians (page cache warm) and ratios to the read floor, then checks the
targets: a cold catalog within 3x the read floor and at least 8x faster than google-adk's
``list_skills_in_dir``; a no-change refresh within 2x the stat floor, reading no file.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from backends import LocalBackend
from benchmarks.corpus import write_corpus
from skills_core import ReloadReport, SkillCatalog


def floor_stat(root: Path) -> list[os.stat_result]:
    """scandir the root and stat every SKILL.md: the least a change check can do."""
    with os.scandir(root) as entries:
        return [
            os.stat(os.path.join(entry.path, "SKILL.md"))
            for entry in entries
            if entry.is_dir() and not entry.name.startswith(".")
        ]


def floor_read(root: Path) -> list[bytes]:
    """scandir the root and read every SKILL.md into memory: the least a cold load can do."""
    contents = []
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_dir() and not entry.name.startswith("."):
                with open(os.path.join(entry.path, "SKILL.md"), "rb") as handle:
                    contents.append(handle.read())
    return contents


def skillfs_cold(root: Path) -> SkillCatalog:
    """A new catalog's first refresh."""
    catalog = SkillCatalog(LocalBackend(root))
    report = asyncio.run(catalog.refresh())
    assert not report.errors, report.errors[:3]
    return catalog


def skillfs_no_change(root: Path) -> Callable[[], object]:
    """Refreshes of a catalog that is already current (setup excluded from timing)."""
    loop = asyncio.new_event_loop()
    catalog = SkillCatalog(LocalBackend(root))
    loop.run_until_complete(catalog.refresh())

    def refresh() -> ReloadReport:
        report = loop.run_until_complete(catalog.refresh())
        assert report.fetched == 0
        return report

    return refresh


def adk_list(root: Path) -> object:
    """google-adk 2.13 ``list_skills_in_dir``: frontmatter of every skill."""
    from google.adk.skills import list_skills_in_dir

    return list_skills_in_dir(root)


def adk_load(root: Path) -> object:
    """google-adk 2.13 ``load_skills_from_dir``: whole skills with their resources."""
    from google.adk.skills import load_skills_from_dir

    return load_skills_from_dir(root)


def skills_ref_read(root: Path) -> object:
    """skills-ref 0.1.1 ``read_properties`` on every skill folder."""
    from skills_ref.parser import read_properties

    return [
        read_properties(entry)
        for entry in sorted(root.iterdir())
        if entry.is_dir() and not entry.name.startswith(".")
    ]


def median_seconds(cases: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median time of each case to its loaded result (freeing it is not timed).

    The cases take turns, one run each per round, so a noisy stretch of the machine falls on
    all of them alike rather than on whichever ran then.
    """
    for run in cases.values():
        run()  # warm-up: page cache, imports
    samples: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(runs):
        for label, run in cases.items():
            started = time.perf_counter()
            result = run()
            samples[label].append(time.perf_counter() - started)
            del result
    return {label: statistics.median(times) for label, times in samples.items()}


def bench(root: Path, runs: int, slow_runs: int) -> dict[str, float]:
    fast = {
        "floor: stat every SKILL.md": lambda: floor_stat(root),
        "floor: read every SKILL.md": lambda: floor_read(root),
        "skillfs cold catalog": lambda: skillfs_cold(root),
        "skillfs no-change refresh": skillfs_no_change(root),
    }
    slow = {
        "google-adk list_skills_in_dir": lambda: adk_list(root),
        "google-adk load_skills_from_dir": lambda: adk_load(root),
        "skills-ref read_properties": lambda: skills_ref_read(root),
    }
    return {**median_seconds(fast, runs), **median_seconds(slow, slow_runs)}


def print_table(count: int, results: dict[str, float]) -> None:
    read_floor = results["floor: read every SKILL.md"]
    cold = results["skillfs cold catalog"]
    print(f"\nN = {count:,} skills")
    print(f"| {'loader':<34} | {'median ms':>10} | {'x read floor':>12} | {'x skillfs cold':>14} |")
    print(f"|{'-' * 36}|{'-' * 12}|{'-' * 14}|{'-' * 16}|")
    for label, seconds in results.items():
        print(
            f"| {label:<34} | {seconds * 1000:>10.1f} | {seconds / read_floor:>12.2f} "
            f"| {seconds / cold:>14.2f} |"
        )


def check_targets(results: dict[str, float]) -> list[str]:
    cold = results["skillfs cold catalog"]
    checks = [
        ("cold <= 3x read floor", cold <= 3 * results["floor: read every SKILL.md"]),
        ("cold >= 8x faster than adk list", results["google-adk list_skills_in_dir"] >= 8 * cold),
        (
            "no-change <= 2x stat floor",
            results["skillfs no-change refresh"] <= 2 * results["floor: stat every SKILL.md"],
        ),
    ]
    return [f"{'PASS' if ok else 'FAIL'}: {label}" for label, ok in checks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--slow-runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="where to keep the corpus (default: a temp dir)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # google-adk logs one line per skill otherwise
    base = args.dir or Path(tempfile.mkdtemp(prefix="skillfs-bench-"))
    for count in args.sizes:
        root = write_corpus(base / f"corpus-{count}", count)
        results = bench(root, args.runs, args.slow_runs)
        print_table(count, results)
        for line in check_targets(results):
            print(line)


if __name__ == "__main__":
    main()
