"""What a lock costs a catalog: 10,000 local skills with a lock file against without.

Run: ``python -m benchmarks.bench_lock [--sizes 1000 10000] [--runs 7]``. Writes the corpus of
:mod:`benchmarks.corpus` and its lock once (untimed), then times new catalogs' first refresh
without a lock and with the lock file's path (reading and parsing the lock included): cold
(no persistent cache) and restarted (a warm persistent cache, as a new process finds it), in
alternating turns so a noisy stretch of a shared machine falls on each. Figures are CPU-time
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
from skills_core._catalog.cache import CatalogCache
from skills_core._catalog.catalog import lock_of
from skills_core._trust.policy import TrustPolicy


def first_refresh_cpu(root: Path, lock: Path | None, cache: Path | None = None) -> float:
    """CPU seconds of one new catalog's first refresh, with the lock file ``lock`` if given.

    With ``cache``, the catalog starts from the persistent cache in that folder (opening its
    file included), which must hold the source already.
    """
    gc.collect()
    started = time.process_time()
    store = CatalogCache(cache) if cache is not None else False
    catalog = SkillCatalog(LocalBackend(root), trust=TrustPolicy(lock=lock), cache=store)
    report = asyncio.run(catalog.refresh())
    spent = time.process_time() - started
    assert not report.errors, report.errors[:3]
    assert cache is None or report.fetched == 0, "the cache was not warm"
    if isinstance(store, CatalogCache):
        store.close()
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
    print(
        "| skills | lock (once) ms | cold, no lock ms | cold, with lock ms | x "
        "| restart, no lock ms | restart, with lock ms | x |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as base:
        for count in args.sizes:
            root = write_corpus(Path(base) / f"corpus-{count}", count)
            lock = Path(base) / f"skills-{count}.lock"
            build = locked(root, lock)
            cache = Path(base) / f"cache-{count}"
            first_refresh_cpu(root, None)  # page cache, imports
            for path in (None, lock):  # warm the persistent cache, once per key
                store = CatalogCache(cache)
                asyncio.run(
                    SkillCatalog(
                        LocalBackend(root), trust=TrustPolicy(lock=path), cache=store
                    ).refresh()
                )
                store.close()
            cases = [(None, None), (lock, None), (None, cache), (lock, cache)]
            samples: list[list[float]] = [[] for _ in cases]
            for run in range(args.runs):
                order = list(enumerate(cases))
                for index, (path, folder) in order if run % 2 == 0 else order[::-1]:
                    samples[index].append(first_refresh_cpu(root, path, folder))
            cold, cold_locked, warm, warm_locked = (statistics.median(ms) for ms in samples)
            print(
                f"| {count:,} | {build * 1e3:,.0f} | {cold * 1e3:,.0f} "
                f"| {cold_locked * 1e3:,.0f} | {cold_locked / cold:.2f} "
                f"| {warm * 1e3:,.0f} | {warm_locked * 1e3:,.0f} | {warm_locked / warm:.2f} |"
            )


if __name__ == "__main__":
    main()
