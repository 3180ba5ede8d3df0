"""Fail when the cold catalog costs more than 20% over an earlier commit's, measured in one run.

Run: ``python -m benchmarks.guard --against REF`` (a git ref, or a folder holding a checkout).
Both checkouts load the same generated corpus (2,000 skills by default) in child processes
taking turns (:func:`benchmarks.bench_cold.compare`); each figure is a median of CPU time, so
the waits a loaded machine causes do not count. A ratio over the limit is measured again, and
the guard fails only when both measurements are over: a real regression repeats, a noisy
stretch rarely does. Exit status 0 within the limit, 1 over it; about 20 s on 2 CPUs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_cold import FLOOR, THIS, compare
from benchmarks.children import HERE

TOLERANCE = 0.20
"""How much slower than the earlier commit the cold catalog may be."""


def ratio(ref: str, args: argparse.Namespace, base: Path) -> float:
    """This checkout's cold catalog over ``ref``'s, with one line saying so."""
    results = compare([ref], args.skills, base, args.rounds, args.repeats, checkout=args.checkout)
    found = results[THIS] / results[ref]
    checked = THIS if args.checkout == HERE else str(args.checkout)
    print(
        f"cold catalog of {args.skills:,} skills, CPU medians: {ref} {results[ref] * 1e3:.1f} ms, "
        f"{checked} {results[THIS] * 1e3:.1f} ms ({found:.2f}x; read floor "
        f"{results[FLOOR] * 1e3:.1f} ms)"
    )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", required=True, help="a git ref or a checkout folder")
    parser.add_argument("--checkout", type=Path, default=HERE, help="the code to check")
    parser.add_argument("--skills", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="timed loads per child")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE)
    args = parser.parse_args(argv)
    limit = 1 + args.tolerance
    with tempfile.TemporaryDirectory(prefix="skillfs-guard-") as folder:
        ratios = [ratio(args.against, args, Path(folder))]
        if ratios[0] > limit:
            print("over the limit: measuring again")
            ratios.append(ratio(args.against, args, Path(folder)))
    verdict = min(ratios) <= limit
    print(f"{'PASS' if verdict else 'FAIL'}: cold catalog within {limit:.2f}x {args.against}")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
