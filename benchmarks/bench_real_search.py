"""What the model gets from search, measured on real skill collections you bring.

Run: ``python -m benchmarks.bench_real_search COLLECTIONS REQUESTS``.

``COLLECTIONS`` is a folder holding skill folders at any depth (every ``SKILL.md`` below it is
one skill, named after its folder; the first of two equal names wins), for example checkouts of
public collections. ``REQUESTS`` is a tab-separated file, one request a line:
``split<TAB>skill<TAB>request``, where ``split`` names a part of the set (keep one part aside
while tuning: "held") and ``skill`` is the skill that fits, or ``-`` when none does.

Per split: over the full ranking (every skill scored), recall@1, recall@3 and MRR of the
answerable requests; then what the ``search_skills`` tool returns by default: how many
answerable requests come back empty, how many have their skill first (and first and marked
``strong``), and for requests no skill fits how many come back empty, weak (every result
marked ``weak``) or with a strong result.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import defaultdict
from pathlib import Path

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.context._search import rank_skills
from skills_core.context._selection import SelectionPolicy
from skills_core.tools import SkillTools

EVERY_SKILL = SelectionPolicy(top_k=100_000, min_score=0.0)


def load_collections(root: Path) -> SkillCatalog:
    skills: dict[str, dict[str, bytes]] = {}
    for path in sorted(root.rglob("SKILL.md")):
        skills.setdefault(path.parent.name, {"SKILL.md": path.read_bytes()})
    catalog = SkillCatalog(MemoryBackend(skills))
    asyncio.run(catalog.refresh())
    return catalog


def load_requests(path: Path) -> dict[str, list[tuple[str, str | None]]]:
    splits: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            split, wanted, request = line.split("\t")
            splits[split].append((request, None if wanted == "-" else wanted))
    return splits


def is_weak(entry: dict[str, object]) -> bool:
    """A result marked weak (results without a strength, from older versions, count strong)."""
    return entry.get("strength") == "weak"


def report(catalog: SkillCatalog, split: str, requests: list[tuple[str, str | None]]) -> None:
    tools = SkillTools(catalog)
    answerable = [(request, wanted) for request, wanted in requests if wanted]
    unfitting = [request for request, wanted in requests if not wanted]
    first = top3 = reciprocal = 0.0
    empty = right_first = right_strong = 0
    for request, wanted in answerable:
        names = [m.name for m in rank_skills(catalog, request, EVERY_SKILL) if m.score > 0]
        rank = names.index(wanted) + 1 if wanted in names else None
        first += rank == 1
        top3 += rank is not None and rank <= 3
        reciprocal += 1 / rank if rank else 0.0
        found = asyncio.run(tools.search_skills(request))["skills"]
        empty += not found
        right_first += bool(found) and found[0]["name"] == wanted
        right_strong += bool(found) and found[0]["name"] == wanted
        right_strong -= bool(found) and found[0]["name"] == wanted and is_weak(found[0])
    marks: dict[str, int] = defaultdict(int)
    for request in unfitting:
        found = asyncio.run(tools.search_skills(request))["skills"]
        marks["empty" if not found else "weak" if all(map(is_weak, found)) else "strong"] += 1
    count = len(answerable)
    print(
        f"| {split} | {count} | {first / count:.3f} | {top3 / count:.3f} | "
        f"{reciprocal / count:.3f} | {empty} | {right_first} | {right_strong} | {len(unfitting)} | "
        f"{marks['empty']} | {marks['weak']} | {marks['strong']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("collections", type=Path)
    parser.add_argument("requests", type=Path)
    args = parser.parse_args()
    catalog = load_collections(args.collections)
    print(f"{len(catalog)} skills")
    print(
        "| split | answerable | R@1 | R@3 | MRR | empty | skill first | first, strong "
        "| unfitting | empty | weak | strong |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for split, requests in load_requests(args.requests).items():
        report(catalog, split, requests)


if __name__ == "__main__":
    main()
