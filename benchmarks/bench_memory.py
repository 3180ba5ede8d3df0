"""Memory held by a loaded catalog against google-adk's loaders, on the generated corpus.

Run: ``python -m benchmarks.bench_memory [--size 10000]``. Prints the bytes each keeps alive
(tracemalloc, after a full collection), per skill and in total.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from backends import LocalBackend
from benchmarks.corpus import write_corpus
from skills_core import SkillCatalog


def retained(load: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        kept = load()
        gc.collect()
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return size


def skillfs_catalog(root: Path) -> SkillCatalog:
    catalog = SkillCatalog(LocalBackend(root))
    asyncio.run(catalog.refresh())
    return catalog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, help="where to keep the corpus (default: a temp dir)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    from google.adk.skills import list_skills_in_dir, load_skills_from_dir

    base = args.dir or Path(tempfile.mkdtemp(prefix="skillfs-bench-"))
    root = write_corpus(base / f"corpus-{args.size}", args.size)
    cases = {
        "skillfs catalog (metadata + bodies)": lambda: skillfs_catalog(root),
        "google-adk list_skills_in_dir (frontmatter)": lambda: list_skills_in_dir(root),
        "google-adk load_skills_from_dir (everything)": lambda: load_skills_from_dir(root),
    }
    print(f"\nN = {args.size:,} skills")
    print(f"| {'loader':<46} | {'MiB kept':>9} | {'bytes/skill':>11} |")
    print(f"|{'-' * 48}|{'-' * 11}|{'-' * 13}|")
    for label, load in cases.items():
        size = retained(load)
        print(f"| {label:<46} | {size / 2**20:>9.1f} | {size // args.size:>11,} |")


if __name__ == "__main__":
    main()
