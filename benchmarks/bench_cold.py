"""The cold catalog of this checkout against an earlier commit's, measured in one run.

Run: ``python -m benchmarks.bench_cold --against a485bc9 [--sizes 1000 10000] [--rounds 7]``.
``--against`` takes any git ref; its files are extracted to a temporary folder
(``git archive``). Each round runs one child process per checkout
(:mod:`benchmarks.cold_cases`: one untimed load, then ``--repeats`` timed ones), in turns whose
order alternates, and times the read floor in this process, so a noisy stretch of a shared
machine falls on all of them alike. Every figure is CPU time (``time.process_time``, worker
threads included): the median of each child's repeats, then the median over rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.bench_local import floor_read
from benchmarks.children import HERE, checkout_at, run_case, work_dir
from benchmarks.corpus import write_corpus
from benchmarks.timing import machine

CASES = Path(__file__).with_name("cold_cases.py")
FLOOR = "read floor"
THIS = "this checkout"


def cpu_seconds(run: Callable[[], object]) -> float:
    """CPU seconds of one call of ``run`` in this process."""
    started = time.process_time()
    run()
    return time.process_time() - started


def measure(root: Path, checkouts: dict[str, Path], rounds: int, repeats: int) -> dict[str, float]:
    """Median CPU seconds of a cold catalog per checkout, and of the read floor."""
    samples: dict[str, list[float]] = {FLOOR: [], **{label: [] for label in checkouts}}
    floor_read(root)  # page cache
    turns = list(checkouts.items())
    for round_ in range(rounds):
        for label, checkout in turns if round_ % 2 == 0 else turns[::-1]:
            found = run_case(CASES, checkout, str(root), str(repeats))["cold"]
            samples[label].append(statistics.median(found))
        samples[FLOOR].append(
            statistics.median(cpu_seconds(lambda: floor_read(root)) for _ in range(repeats))
        )
    return {label: statistics.median(values) for label, values in samples.items()}


def table(count: int, results: dict[str, float]) -> str:
    """A markdown table of one size's medians, against the read floor and the first ref."""
    floor = results[FLOOR]
    first = next(label for label in results if label != FLOOR)
    lines = [
        f"\nN = {count:,} skills (CPU time, medians)\n",
        f"| cold catalog | CPU ms | x read floor | x {first} |",
        "|---|---:|---:|---:|",
    ]
    for label, seconds in results.items():
        lines.append(
            f"| {label} | {seconds * 1e3:,.1f} | {seconds / floor:.2f} "
            f"| {seconds / results[first]:.2f} |"
        )
    return "\n".join(lines)


def compare(
    refs: list[str], count: int, base: Path, rounds: int, repeats: int, *, checkout: Path = HERE
) -> dict[str, float]:
    """Cold catalog medians at ``count`` skills: the read floor, each ref, then ``checkout``.

    A ref is a git ref or a folder holding a checkout.
    """
    root = write_corpus(base / f"corpus-{count}", count)
    with contextlib.ExitStack() as stack:
        checkouts = {ref: stack.enter_context(checkout_at(ref)) for ref in refs}
        return measure(root, {**checkouts, THIS: checkout}, rounds, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--against", nargs="+", required=True, help="git refs (or checkout folders) to compare with"
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3, help="timed loads per child")
    parser.add_argument("--dir", type=Path, help="where to keep corpora (default: a temp dir)")
    args = parser.parse_args()
    base = work_dir(args)
    print(f"{machine()}; {args.rounds} rounds of {args.repeats} loads per checkout")
    for count in args.sizes:
        print(table(count, compare(args.against, count, base, args.rounds, args.repeats)))


if __name__ == "__main__":
    main()
