"""What a lock costs a cold catalog: 10,000 local skills with a lock file against without.

Run: ``python -m benchmarks.bench_lock [--sizes 1000 10000] [--runs 7]``. Writes the corpus of
:mod:`benchmarks.corpus` and its lock once (untimed), then times new catalogs' first refresh
without a lock and with the lock file's path (reading and parsing the lock included), in
alternating turns so a noisy stretch of a shared machine falls on both. Figures are CPU-time
medians (:mod:`benchmarks.timing`); locking the corpus (``skillfs lock``) is timed once.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import tempfile
import time
from pathlib import Path

from backends import LocalBackend
from benchmarks.corpus import write_corpus
from benchmarks.timing import machine
from skills_core import SkillCatalog
from skills_core.catalog.lock_build import lock_of


def cold_cpu(root: Path, lock: Path | None) -> float:
    """CPU seconds of one new catalog's first refresh, with the lock file ``lock`` if given."""
    gc.collect()
    started = time.process_time()
    catalog = SkillCatalog(LocalBackend(root), lock=lock)
    report = asyncio.run(catalog.refresh())
    spent = time.process_time() - started
    assert not report.errors, report.errors[:3]
    return spent


def locked(root: Path, path: Path) -> float:
    """Write the lock of ``root`` to ``path``; the CPU seconds it took."""

    async def build() -> None:
        catalog = SkillCatalog(LocalBackend(root))
        await catalog.refresh()
        (await lock_of(catalog)).write(path)

    started = time.process_time()
    asyncio.run(build())
    return time.process_time() - started


def main() -> None:
    """Print one table row per size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(machine())
    print("| skills | lock (once) ms | cold, no lock ms | cold, with lock ms | x |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as base:
        for count in args.sizes:
            root = write_corpus(Path(base) / f"corpus-{count}", count)
            lock = Path(base) / f"skills-{count}.lock"
            build = locked(root, lock)
            cold_cpu(root, None)  # page cache, imports
            plain: list[float] = []
            pinned: list[float] = []
            for run in range(args.runs):
                turns = [(plain, None), (pinned, lock)]
                for samples, path in turns if run % 2 == 0 else turns[::-1]:
                    samples.append(cold_cpu(root, path))
            without, with_lock = statistics.median(plain), statistics.median(pinned)
            print(
                f"| {count:,} | {build * 1e3:,.0f} | {without * 1e3:,.0f} "
                f"| {with_lock * 1e3:,.0f} | {with_lock / without:.2f} |"
            )


if __name__ == "__main__":
    main()
