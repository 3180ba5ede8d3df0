"""What the model gets from search, measured on real skill collections you bring.

Run: ``python -m benchmarks.bench_real_search COLLECTIONS REQUESTS [--against REF ...]
[--embedder MODEL]``.

``COLLECTIONS`` is a folder holding skill folders at any depth (every ``SKILL.md`` below it is
one skill, named after its folder; the first of two equal names wins), for example checkouts of
public collections. ``REQUESTS`` is a tab-separated file, one request a line:
``split<TAB>skill<TAB>request``, where ``split`` names a part of the set (keep one part aside
while tuning: "held") and ``skill`` is the skill that fits, or ``-`` when none does.

Per split, for this checkout's ranked search, for each ``--against`` checkout's (a git ref or
a checkout folder, run in a child process) and for plain BM25 over whole skills (name,
description and body as one text, ``k1`` 1.2, ``b`` 0.75, scored as shares of the request with
its strong bar set by the same chance requests): over the full ranking (every skill scored),
recall@1, recall@3 and MRR of the answerable requests and how many have their skill outside
the first 5 (what the ``search_skills`` tool returns by default); how many have their skill
first and marked ``strong``; how many requests no skill fits get a ``strong`` result among
the first 5.

With ``--embedder`` (a folder :func:`~skills_core.context.load_embedder` reads, or a BERT
sentence-transformers folder holding ``model.safetensors``, exported to ONNX first by
:mod:`benchmarks.bert_onnx`), the same for the hybrid (this checkout's search fused with the
model at the default dense weight), and what embedding costs: CPU and wall time per skill
(batches of 32, as the index embeds them) and per request, and the model's resident memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core.context import Embedder, SelectionPolicy, load_embedder, rank_skills

EVERY_SKILL = SelectionPolicy(top_k=100_000, min_score=0.0)
TOP = 5
"""Results the ``search_skills`` tool returns by default."""

Requests = dict[str, list[tuple[str, str | None]]]
Ranking = Callable[[str], list[tuple[str, bool]]]
"""A request's ranked skills (those sharing a term), best first, each with its strength."""


def load_collections(root: Path) -> SkillCatalog:
    skills: dict[str, dict[str, bytes]] = {}
    for path in sorted(root.rglob("SKILL.md")):
        skills.setdefault(path.parent.name, {"SKILL.md": path.read_bytes()})
    catalog = SkillCatalog(MemoryBackend(skills))
    asyncio.run(catalog.refresh())
    return catalog


def load_requests(path: Path) -> Requests:
    splits: Requests = defaultdict(list)
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            split, wanted, request = line.split("\t")
            splits[split].append((request, None if wanted == "-" else wanted))
    return splits


def figures(rank: Ranking, requests: list[tuple[str, str | None]]) -> dict[str, float]:
    """One split's figures for a ranking."""
    answerable = [(request, wanted) for request, wanted in requests if wanted]
    found = Counter[str]()
    for request, wanted in answerable:
        ranked = rank(request)
        names = [name for name, _ in ranked]
        at = names.index(wanted) + 1 if wanted in names else math.inf
        found.update(R1=at == 1, R3=at <= 3, outside=at > TOP, strong=at == 1 and ranked[0][1])
        found["MRR"] += 1 / at
    unfit = [rank(request)[:TOP] for request, wanted in requests if not wanted]
    count = len(answerable)
    return {
        **{key: found[key] / count for key in ("R1", "R3", "MRR")},
        **{key: found[key] for key in ("outside", "strong")},
        "answerable": count,
        "unfitting": len(unfit),
        "unfit_strong": sum(any(strong for _, strong in top) for top in unfit),
    }


def shipped(catalog: SkillCatalog, policy: SelectionPolicy = EVERY_SKILL) -> Ranking:
    """Ranked search of the checkout imported."""
    return lambda request: [
        (m.name, m.strength == "strong")
        for m in rank_skills(catalog, request, policy)
        if m.score > 0
    ]


def resident_mb() -> float:
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def embedding_cost(catalog: SkillCatalog, folder: Path, requests: list[str]) -> Embedder:
    """Load the model, embed every skill into the search index and each request; print costs."""
    from skills_core.context import search_index
    from skills_core.context._embed import embedding_text

    if (folder / "model.safetensors").exists():
        from benchmarks.bert_onnx import export

        folder = export(folder, Path(tempfile.mkdtemp()))
    before = resident_mb()
    embedder = load_embedder(folder)
    loaded = resident_mb()
    texts = [
        embedding_text(e.metadata)
        for e in catalog.snapshot.loaded.values()
        if e.metadata is not None and e.metadata.model_invocable
    ]
    vectors = search_index(catalog)._vectors(embedder)  # what a search fills
    cpu, wall = time.process_time(), time.perf_counter()
    vectors.embed_missing(texts)
    skill_cpu, skill_wall = time.process_time() - cpu, time.perf_counter() - wall
    cpu, wall = time.process_time(), time.perf_counter()
    for request in requests:
        embedder.embed([request])
    asked_cpu, asked_wall = time.process_time() - cpu, time.perf_counter() - wall
    n, m = len(texts), len(requests)
    print(
        f"embedding {n} skills (name and description): {1000 * skill_cpu / n:.1f} ms CPU, "
        f"{1000 * skill_wall / n:.1f} ms wall a skill; {skill_cpu * 1000 / n:.1f} s CPU, "
        f"{skill_wall * 1000 / n:.1f} s wall per 1,000 skills"
    )
    print(
        f"embedding {m} requests: {1000 * asked_cpu / m:.1f} ms CPU, "
        f"{1000 * asked_wall / m:.1f} ms wall a request; runtime and model "
        f"{loaded - before:.0f} MB resident once loaded, {resident_mb() - before:.0f} MB after"
    )
    return embedder


class PlainBM25:
    """BM25 over whole skills, scored and calibrated as ranked search scores its fields."""

    K1 = 1.2
    B = 0.75

    def __init__(self, catalog: SkillCatalog) -> None:
        from skills_core.context._search import chance_bar
        from skills_core.context._words import search_terms, tokenize

        self._holders: dict[str, dict[str, float]] = defaultdict(dict)
        lengths: dict[str, int] = {}
        terms: dict[str, list[str]] = {}
        for name, entry in catalog.snapshot.loaded.items():
            meta = entry.metadata
            if meta is not None and meta.model_invocable:
                text = f"{meta.name}\n{meta.description}\n{entry.body}"
                counts = Counter(search_terms(text))
                lengths[name], terms[name] = len(tokenize(text)), list(counts)
                for term, n in counts.items():
                    self._holders[term][name] = n
        average = sum(lengths.values()) / max(1, len(lengths))
        for holders in self._holders.values():
            for name, n in holders.items():
                tf = n / (1 - self.B + self.B * lengths[name] / average)
                holders[name] = tf / (tf + self.K1)
        self._count = len(lengths)
        self._search_terms = search_terms
        names = sorted(terms)
        self.bar = chance_bar(
            len(names),
            lambda rng: rng.choice(terms[rng.choice(names)] or [""]),
            lambda term: len(self._holders.get(term, ())),
            lambda asked: max(self.scores(asked).values(), default=0.0),
        )

    def scores(self, terms: Mapping[str, int]) -> dict[str, float]:
        """Each matching skill's share of the request's weight (idf as ranked search's)."""
        scores: dict[str, float] = defaultdict(float)
        weights = {}
        for term, repeats in terms.items():
            df = len(self._holders.get(term, ()))
            weights[term] = repeats * math.log(1 + (self._count - df + 0.5) / (df + 0.5))
        total = sum(weights.values())
        for term, weight in weights.items():
            for name, saturated in self._holders.get(term, {}).items():
                scores[name] += saturated * weight / total
        return scores

    def rank(self, request: str) -> list[tuple[str, bool]]:
        """See :data:`Ranking`."""
        scores = self.scores(Counter(self._search_terms(request)))
        best = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
        return [(name, score > self.bar) for name, score in best]


def row(label: str, split: str, found: Mapping[str, float]) -> str:
    cells = [f"{found[key]:.3f}" for key in ("R1", "R3", "MRR")]
    cells += [f"{found['outside']:.0f}", f"{found['strong']:.0f}"]
    cells.append(f"{found['unfit_strong']:.0f}/{found['unfitting']:.0f}")
    return f"| {label} | {split} ({found['answerable']:.0f}) | {' | '.join(cells)} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("collections", type=Path)
    parser.add_argument("requests", type=Path)
    parser.add_argument("--against", nargs="*", default=[], help="git refs or checkout folders")
    parser.add_argument("--json", action="store_true", help="this checkout's figures as JSON")
    parser.add_argument("--embedder", type=Path, help="a model folder: also rank the hybrid")
    args = parser.parse_args()
    catalog = load_collections(args.collections)
    splits = load_requests(args.requests)
    ours = {split: figures(shipped(catalog), asked) for split, asked in splits.items()}
    if args.json:
        print(json.dumps(ours))
        return
    from benchmarks.children import checkout_at, run_case

    results = {}
    for ref in args.against:
        with checkout_at(ref) as folder:
            paths = (str(args.collections.resolve()), str(args.requests.resolve()))
            results[ref] = run_case(Path(__file__), folder, *paths, "--json")
    results["this checkout"] = ours
    if args.embedder:
        asked = [request for requests in splits.values() for request, _ in requests]
        embedder = embedding_cost(catalog, args.embedder, asked)
        hybrid = shipped(catalog, SelectionPolicy(top_k=100_000, min_score=0.0, embedder=embedder))
        results["this checkout + dense"] = {
            split: figures(hybrid, asked) for split, asked in splits.items()
        }
    plain = PlainBM25(catalog)
    results["plain BM25"] = {split: figures(plain.rank, asked) for split, asked in splits.items()}
    print(f"{len(catalog)} skills; {TOP} results by default")
    print(
        "| ranking | split (answerable) | R@1 | R@3 | MRR | outside top 5 | first, strong "
        "| unfitting strong |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for split in splits:
        for label, found in results.items():
            print(row(label, split, found[split]))


if __name__ == "__main__":
    main()
