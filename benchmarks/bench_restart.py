"""Restarts with the persistent catalog cache: a new process against the in-process floors.

Run: ``python -m benchmarks.bench_restart [--sizes 1000 10000 [100000]] [--rounds 5]
[--against REF]``. Each round runs :mod:`benchmarks.restart_cases` in a child process (cold
catalog without a cache, a new catalog's first refresh through a warm cache, an in-process
no-change refresh), and with ``--against`` (a git ref or a checkout folder) another child on
that code, in turns whose order alternates; it times the read floor (scandir + read every
SKILL.md) and the list+stat floor (scandir + stat every SKILL.md) in this process. CPU time
and wall time, medians of each child's repeats, then over rounds. Targets (issue 21): a warm
first refresh <= 1.5x the no-change refresh and <= 0.6x the read floor; (issue 32) a new
process's first search <= 1.5x the first search of a catalog holding its bodies.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.bench_local import floor_read, floor_stat
from benchmarks.children import HERE, checkout_at, run_case, work_dir
from benchmarks.corpus import write_corpus
from benchmarks.timing import machine

CASES = Path(__file__).with_name("restart_cases.py")
FLOORS: dict[str, Callable[[Path], object]] = {"read": floor_read, "stat": floor_stat}
ROWS = {
    "cold": "cold catalog, no cache",
    "coldsave": "cold catalog, saving to an empty cache",
    "warm": "new process, warm cache (first refresh)",
    "nochange": "in-process no-change refresh",
    "searchheld": "first search, catalog holding its bodies (no cache)",
    "searchsave": "first search, cold catalog saving to an empty cache",
    "searchwarm": "first search in a new process, warm cache",
    "searchagain": "a search again, the index built",
    "read": "read floor (scandir + read)",
    "stat": "list+stat floor (scandir + stat)",
}


THIS = "this checkout"


def measure(
    root: Path, checkouts: dict[str, Path], rounds: int, repeats: int
) -> dict[str, tuple[float, float]]:
    """Median (CPU, wall) seconds of each row of :data:`ROWS` at one corpus.

    The rows of a checkout other than :data:`THIS` are keyed ``"<row> @ <its label>"``.
    """
    samples: dict[str, list[tuple[float, float]]] = {}
    floor_read(root)  # page cache
    turns = list(checkouts.items())
    for round_ in range(rounds):
        for label, checkout in turns if round_ % 2 == 0 else turns[::-1]:
            with tempfile.TemporaryDirectory(prefix="skillfs-cache-") as cache:
                found = run_case(CASES, checkout, str(root), cache, str(repeats))
            for key, pairs in found.items():
                row = key if label == THIS else f"{key} @ {label}"
                samples.setdefault(row, []).append(_medians(pairs))
        for key, floor in FLOORS.items():
            timed = [_timed(floor, root) for _ in range(repeats)]
            samples.setdefault(key, []).append(_medians(timed))
    return {key: _medians(pairs) for key, pairs in samples.items()}


def _timed(floor: Callable[[Path], object], root: Path) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    floor(root)
    return time.process_time() - cpu, time.perf_counter() - wall


def _medians(pairs: Sequence[Sequence[float]]) -> tuple[float, float]:
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def table(count: int, results: dict[str, tuple[float, float]]) -> str:
    """A markdown table of one size's medians, against the read floor and no-change refresh.

    A checkout's rows are compared with its own no-change refresh.
    """
    lines = [
        f"\nN = {count:,} skills (medians; CPU time, then wall time)\n",
        "| | CPU ms | x read floor | x no-change | wall ms | x read floor | x no-change |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row, seconds_by_clock in results.items():
        key, _, ref = row.partition(" @ ")
        nochange = results["nochange" + (f" @ {ref}" if ref else "")]
        cells = []
        for clock in (0, 1):
            seconds = seconds_by_clock[clock]
            cells += [
                f"{seconds * 1e3:,.1f}",
                f"{seconds / results['read'][clock]:.2f}",
                f"{seconds / nochange[clock]:.2f}",
            ]
        lines.append(f"| {ROWS[key]}{f' ({ref})' if ref else ''} | {' | '.join(cells)} |")
    if "searchwarm" in results:
        ratio = results["searchwarm"][0] / results["searchheld"][0]
        lines.append(f"\nFirst search in a new process: {ratio:.2f}x one holding bodies (CPU).")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per child")
    parser.add_argument("--against", help="a git ref (or checkout folder) to compare with")
    parser.add_argument("--dir", type=Path, help="where to keep corpora (default: a temp dir)")
    args = parser.parse_args()
    base = work_dir(args)
    print(f"{machine()}; {args.rounds} rounds of {args.repeats} runs")
    with contextlib.ExitStack() as stack:
        checkouts = {THIS: HERE}
        if args.against:
            checkouts[args.against] = stack.enter_context(checkout_at(args.against))
        for count in args.sizes:
            root = write_corpus(base / f"corpus-{count}", count)
            print(table(count, measure(root, checkouts, args.rounds, args.repeats)))


if __name__ == "__main__":
    main()
