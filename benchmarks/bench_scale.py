"""Catalog scale: warm get(), small reads, memory and one-edit refreshes, before and after.

Run: ``python -m benchmarks.bench_scale [--sizes 1000 10000] [--with-100k] [--before DIR]``.
``--before`` names a checkout of the code to compare with (for instance
``git archive 54c05a0 | tar -x -C /tmp/before``); each checkout is measured in child
processes of its own (:mod:`benchmarks.scale_cases`), memory cases one process each. Prints
one table per size, then checks the targets of issue #12:

- a warm ``get()`` under 10 us;
- ``read_resource`` of a small file within 2x a plain confined open+read;
- metadata only: retained heap within 2x google-adk's ``list_skills_in_dir``, peak RSS no
  higher than its peak;
- one edited skill's refresh within 1.2x a no-change refresh.

Times are CPU time of the measuring process (worker threads included), medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.bench_local import floor_stat
from benchmarks.children import HERE, add_checkout_arguments, checkouts_of, run_case, work_dir
from benchmarks.corpus import write_corpus
from benchmarks.timing import cpu_median

CASES = Path(__file__).with_name("scale_cases.py")
MIB = 2**20


def measure(root: Path, checkouts: dict[str, Path], runs: int) -> dict[str, dict[str, Any]]:
    """Every case for every checkout, plus google-adk's loaders."""
    results: dict[str, dict[str, Any]] = {}
    for label, checkout in checkouts.items():
        found = run_case(CASES, checkout, "timing", str(root), str(runs))
        modes = (
            ["keep", "lean"]
            if run_case(CASES, checkout, "supports-lean", str(root))["lean"]
            else ["keep"]
        )
        for mode in modes:
            found[f"{mode}_retained"] = run_case(
                CASES, checkout, "memory", str(root), mode, "traced"
            )["retained"]
            found[f"{mode}_rss"] = run_case(CASES, checkout, "memory", str(root), mode, "rss")
        results[label] = found
    stat_floor = cpu_median(lambda: floor_stat(root), runs)
    for found in results.values():
        found["stat_floor"] = stat_floor
    adk = run_case(CASES, HERE, "adk-get", str(root), str(max(3, runs // 2)))
    adk["retained"] = run_case(CASES, HERE, "memory", str(root), "adk", "traced")["retained"]
    adk["rss"] = run_case(CASES, HERE, "memory", str(root), "adk", "rss")
    results["google-adk"] = adk
    return results


def tables(count: int, results: dict[str, dict[str, Any]]) -> str:
    """Markdown tables of one size's results."""
    after, adk = results["after"], results["google-adk"]
    before = results.get("before")
    lines = [
        f"\nN = {count:,} skills (CPU time, median)\n",
        "| measure | "
        + " | ".join(label for label in ("before", "after") if label in results)
        + " | google-adk 2.13 | floor |",
        "|---|" + "---:|" * (len(results) + 1),
    ]

    def row(label: str, key: str, scale: float, unit: str, *, adk_value: str, floor: str) -> None:
        cells = [
            f"{results[name][key] * scale:,.1f} {unit}"
            for name in ("before", "after")
            if name in results
        ]
        lines.append(f"| {label} | {' | '.join(cells)} | {adk_value} | {floor} |")

    row(
        "warm `get()`",
        "get_warm",
        1e6,
        "us",
        adk_value=f"{adk['adk_load_skill'] * 1e6:,.0f} us (`load_skill_from_dir`)",
        floor="",
    )
    row(
        "`read_resource`, small file",
        "read_resource",
        1e6,
        "us",
        adk_value="",
        floor=f"{after['read_floor'] * 1e6:,.1f} us (confined open+read)",
    )
    row(
        "no-change refresh",
        "no_change",
        1e3,
        "ms",
        adk_value="",
        floor=f"{after['stat_floor'] * 1e3:,.1f} ms (stat every SKILL.md)",
    )
    row("refresh after one edit", "one_edit", 1e3, "ms", adk_value="", floor="")
    ratios = [
        f"{results[name]['one_edit'] / results[name]['no_change']:.2f}x"
        for name in ("before", "after")
        if name in results
    ]
    lines.append(f"| one edit / no change | {' | '.join(ratios)} | | |")
    lines.append("\n| memory | retained heap | peak RSS | RSS before loading | peak - before |")
    lines.append("|---|---:|---:|---:|---:|")
    memory_rows = [("google-adk `list_skills_in_dir`", adk["retained"], adk["rss"])]
    if before is not None:
        memory_rows.append(("skillfs before", before["keep_retained"], before["keep_rss"]))
    memory_rows.append(
        ("skillfs, bodies kept (default)", after["keep_retained"], after["keep_rss"])
    )
    memory_rows.append(("skillfs, metadata only", after["lean_retained"], after["lean_rss"]))
    for label, retained, rss in memory_rows:
        lines.append(
            f"| {label} | {retained / MIB:,.1f} MiB | {rss['rss_peak'] / MIB:,.1f} MiB | "
            f"{rss['rss_before'] / MIB:,.1f} MiB | "
            f"{(rss['rss_peak'] - rss['rss_before']) / MIB:,.1f} MiB |"
        )
    return "\n".join(lines)


def targets(results: dict[str, dict[str, Any]]) -> list[str]:
    after, adk = results["after"], results["google-adk"]
    checks = [
        ("warm get() < 10 us", after["get_warm"] < 10e-6),
        (
            "read_resource <= 2x confined open+read",
            after["read_resource"] <= 2 * after["read_floor"],
        ),
        ("metadata-only heap <= 2x google-adk", after["lean_retained"] <= 2 * adk["retained"]),
        (
            "metadata-only peak RSS <= google-adk's",
            after["lean_rss"]["rss_peak"] <= adk["rss"]["rss_peak"],
        ),
        ("one edit <= 1.2x no change", after["one_edit"] <= 1.2 * after["no_change"]),
    ]
    return [f"{'PASS' if ok else 'FAIL'}: {label}" for label, ok in checks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--with-100k", action="store_true", help="also measure 100,000 skills")
    add_checkout_arguments(parser)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    base, checkouts = work_dir(args), checkouts_of(args)
    sizes = [*args.sizes, *([100_000] if args.with_100k else [])]
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; CPU time, median of "
        f"{args.runs} runs"
    )
    for count in sizes:
        root = write_corpus(base / f"corpus-{count}", count)
        results = measure(root, checkouts, args.runs)
        print(tables(count, results))
        for line in targets(results):
            print(line)


if __name__ == "__main__":
    main()
