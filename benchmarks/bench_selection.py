"""Skill selection: quality of ranked search against adk-rust's scorer, and speed.

Run: ``python -m benchmarks.bench_selection [--size 1000] [--repeat 7] [--clock wall|cpu]``.

Quality: the requests of benchmarks/selection_queries.py over the bundled examples plus the
domain skills of benchmarks/selection_skills.py (49 skills), then again with the generated
corpus of benchmarks/corpus.py added as distractors (whose 33-word vocabulary - api,
endpoint, documents, deploy, ... - is in every one of them: a stress test). Recall@k counts
requests whose skill ranks in the first k; MRR averages 1/rank. The threshold sweep shows,
per ``min_score``, the share of fitting requests still answered with their skill first and
the share of "nothing fits" requests that come back empty.

Speed (medians of ``--repeat`` runs): building the index of ``--size`` generated skills
(2-8 KB bodies), re-indexing after a refresh that changed 1 skill of 10,000, and a query, warm
(its words were asked before) and cold (the first use of its words gathers their postings).
Long messages: the adk-rust scorer and ranked search on a 256 KB and a 1 MB message (the
requests repeated) and on 100,000 distinct words, over the same skills.

Real-sized (``--real-sized 10000``): the same on skills of benchmarks/real_sized.py (5-40 KB
bodies, a long-tailed vocabulary): the index build, the calibration of the strong bar, a first
query on a word no query used before (a skill's own identifier, each one new), a common word's
first and later query, and the catch-up after a refresh that changed 1 skill; then the index
build and first 3-word queries again on fresh indexes, with the C postings and with their
pure-Python twin (skills_core/context/_words.py), in the same run, and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from backends import MemoryBackend
from benchmarks.corpus import iter_corpus
from benchmarks.real_sized import real_sized_skills
from benchmarks.selection_queries import FITTING, NOTHING_FITS
from benchmarks.selection_skills import domain_skills
from skills_core import SkillCatalog
from skills_core.context import _words as words
from skills_core.context._search import SkillSearchIndex
from skills_core.context._selection import STRONG, SelectionPolicy, SkillMatch, select_skills
from skills_core.context._words import search_terms

EXAMPLES = Path(__file__).parents[1] / "skills_core" / "examples"
RANKED = SelectionPolicy(top_k=50, min_score=0.0)

Ranker = Callable[[str], list[SkillMatch]]


def catalog_of(distractors: int) -> SkillCatalog:
    skills = {
        path.parent.name: {"SKILL.md": path.read_bytes()} for path in EXAMPLES.glob("*/SKILL.md")
    }
    skills.update((name, {"SKILL.md": text}) for name, text in domain_skills())
    skills.update(
        (name, {"SKILL.md": files["SKILL.md"]}) for name, files in iter_corpus(distractors)
    )
    catalog = SkillCatalog(MemoryBackend(skills))
    asyncio.run(catalog.refresh())
    return catalog


def rankers(catalog: SkillCatalog) -> dict[str, Ranker]:
    index = SkillSearchIndex(catalog)
    return {
        "ranked search (BM25)": lambda query: index.search(query, RANKED),
        "adk-rust scorer": lambda query: select_skills(catalog, query, RANKED),
    }


def positive(ranker: Ranker) -> Ranker:
    return lambda query: [match for match in ranker(query) if match.score > 0]


def quality(ranker: Ranker) -> tuple[float, float, float]:
    first = top3 = reciprocal = 0.0
    for query, wanted in FITTING:
        names = [match.name for match in positive(ranker)(query)]
        rank = names.index(wanted) + 1 if wanted in names else None
        first += rank == 1
        top3 += rank is not None and rank <= 3
        reciprocal += 1 / rank if rank else 0.0
    count = len(FITTING)
    return first / count, top3 / count, reciprocal / count


def sweep(ranker: Ranker, thresholds: Iterable[float]) -> list[tuple[float, float, float]]:
    fitting = [(ranker(query)[:1], wanted) for query, wanted in FITTING]
    nothing = [ranker(query)[:1] for query in NOTHING_FITS]
    rows = []
    for threshold in thresholds:
        answered = sum(
            bool(top) and top[0].name == wanted and top[0].score >= threshold
            for top, wanted in fitting
        )
        empty = sum(not top or top[0].score < threshold for top in nothing)
        rows.append((threshold, answered / len(fitting), empty / len(nothing)))
    return rows


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


class Timer:
    def __init__(self, clock: Callable[[], float], repeat: int) -> None:
        self.clock, self.repeat = clock, repeat

    def once(self, run: Callable[[], object]) -> float:
        start = self.clock()
        run()
        return self.clock() - start

    def median(self, run: Callable[[], object], repeat: int | None = None) -> float:
        return statistics.median(self.once(run) for _ in range(repeat or self.repeat))


def print_quality() -> None:
    for distractors in (0, 952):
        catalog = catalog_of(distractors)
        counts = f"{len(FITTING)} requests, {len(NOTHING_FITS)} that no skill fits"
        print(f"\n{len(catalog)} skills, {counts}")
        print("| selector | recall@1 | recall@3 | MRR |")
        print("|---|---:|---:|---:|")
        for label, ranker in rankers(catalog).items():
            first, top3, mrr = quality(ranker)
            print(f"| {label} | {first:.3f} | {top3:.3f} | {mrr:.3f} |")
    catalog = catalog_of(0)
    print_strength(SkillSearchIndex(catalog))
    ranked, crate = rankers(catalog).values()
    print("\nranked search, by min_score: | min_score | right skill first | 'nothing fits' empty |")
    for threshold, answered, empty in sweep(ranked, (0.1, 0.15, 0.2, 0.25, 0.3, 0.35)):
        print(f"| {threshold:.2f} | {answered:.3f} | {empty:.3f} |")
    print(
        "\nadk-rust scorer, by min_score: | min_score | right skill first | 'nothing fits' empty |"
    )
    for threshold, answered, empty in sweep(crate, (0.5, 1.0, 1.5, 2.0, 2.5, 3.0)):
        print(f"| {threshold:.2f} | {answered:.3f} | {empty:.3f} |")


def print_strength(index: SkillSearchIndex) -> None:
    """What the default search returns: candidates marked strong or weak, against its bar."""
    fitting = [(index.search(query)[:1], wanted) for query, wanted in FITTING]
    nothing = [index.search(query)[:1] for query in NOTHING_FITS]
    first = sum(bool(top) and top[0].name == wanted for top, wanted in fitting)
    strong = sum(
        bool(top) and top[0].name == wanted and top[0].strength == STRONG for top, wanted in fitting
    )
    empty = sum(not top for top, _ in fitting)
    weak = sum(not top or top[0].strength != STRONG for top in nothing)
    count = len(FITTING)
    print(f"\nranked search by default (strong bar {index.strong_bar():.3f}):")
    print(
        f"fitting: skill first {first / count:.3f}, first and strong {strong / count:.3f}, "
        f"empty {empty}; nothing fits: weak or empty {weak / len(NOTHING_FITS):.3f}"
    )


def print_speed(size: int, timer: Timer) -> None:
    catalog = catalog_of(size - 49)
    build = timer.median(lambda: SkillSearchIndex(catalog).sync())
    index = SkillSearchIndex(catalog)
    index.sync()
    calibrate = timer.once(index.strong_bar)
    queries = [query for query, _ in FITTING]
    cold = [timer.once(lambda query=query: index.search(query)) for query in queries]
    warm = [timer.median(lambda query=query: index.search(query)) for query in queries]
    select_skills(catalog, "warm up")
    crate = [
        timer.median(lambda query=query: select_skills(catalog, query), 3) for query in queries
    ]
    print(f"\n{len(catalog):,} skills ({timer.clock.__name__})")
    print(f"index build: {build * 1000:.1f} ms; strong bar calibration {calibrate * 1000:.1f} ms")
    for label, times in (("warm", warm), ("cold", cold), ("adk-rust scorer", crate)):
        median, worst = statistics.median(times) * 1000, max(times) * 1000
        print(f"query, {label}: median {median:.3f} ms, max {worst:.3f} ms")
    print_long_messages(catalog, index, timer)
    print_incremental(timer)


def long_messages() -> dict[str, str]:
    requests = " ".join(query for query, _ in FITTING) + " "
    return {
        "256 KB message": (requests * (2**18 // len(requests) + 1))[: 2**18],
        "1 MB message": (requests * (2**20 // len(requests) + 1))[: 2**20],
        "100,000 distinct words": " ".join(f"word{i}" for i in range(100_000)),
    }


def print_long_messages(catalog: SkillCatalog, index: SkillSearchIndex, timer: Timer) -> None:
    for label, message in long_messages().items():
        crate = timer.median(lambda message=message: select_skills(catalog, message), 3)
        search = timer.median(lambda message=message: index.search(message), 3)
        print(
            f"{label}: adk-rust scorer {crate * 1000:.1f} ms, ranked search {search * 1000:.1f} ms"
        )


def print_incremental(timer: Timer) -> None:
    backend = MemoryBackend(
        {name: {"SKILL.md": files["SKILL.md"]} for name, files in iter_corpus(10_000)}
    )
    catalog = SkillCatalog(backend)
    asyncio.run(catalog.refresh())
    index = SkillSearchIndex(catalog)
    index.search("deploy")
    cold = timer.once(SkillSearchIndex(catalog).sync)
    times = []
    for round_ in range(timer.repeat):
        text = (
            f"---\nname: skill-00042\ndescription: Plumbing emergency {round_}.\n---\nFix leaks.\n"
        )
        backend.put("skill-00042", {"SKILL.md": text})
        asyncio.run(catalog.refresh())
        times.append(timer.once(index.sync))
    reindexed = index.indexed - 10_000
    print(f"\n10,000 skills: index build {cold * 1000:.0f} ms")
    print(
        f"after a refresh changing 1 skill: {statistics.median(times) * 1000:.2f} ms "
        f"({reindexed} skills re-indexed in {timer.repeat} refreshes)"
    )


def print_real_sized(count: int, timer: Timer) -> None:
    backend = MemoryBackend({name: {"SKILL.md": text} for name, text in real_sized_skills(count)})
    catalog = SkillCatalog(backend)
    asyncio.run(catalog.refresh())
    megabytes = sum(len(entry.raw) for entry in catalog.snapshot.loaded.values()) / 1e6
    index = SkillSearchIndex(catalog)
    build = timer.once(index.sync)
    calibrate = timer.once(index.strong_bar)
    step = max(1, count // 25)
    rare = [timer.once(lambda i=i: index.search(f"real{i:05d}x7")) for i in range(0, count, step)]
    first_body = next(iter(catalog.snapshot.loaded.values())).raw
    frequent = [word for word, _ in Counter(search_terms(first_body.decode())).most_common(2)]
    common = [timer.once(lambda word=word: index.search(word)) for word in frequent]
    rng = random.Random(5)
    bodies = [entry.raw for entry in rng.sample(list(catalog.snapshot.loaded.values()), 25)]
    drawn = [rng.choice(search_terms(body.decode()[len(body) // 2 :])) for body in bodies]
    typical = [timer.once(lambda word=word: index.search(word)) for word in drawn]
    again = [timer.median(lambda word=word: index.search(word)) for word in frequent]
    holders = len(index.search(frequent[0], SelectionPolicy(top_k=count)))
    times = []
    for round_ in range(timer.repeat):
        text = f"---\nname: real-00042\ndescription: Plumbing {round_}.\n---\nFix leaks.\n"
        backend.put("real-00042", {"SKILL.md": text})
        asyncio.run(catalog.refresh())
        times.append(timer.once(index.sync))
    print(f"\n{count:,} real-sized skills ({megabytes:.0f} MB), {timer.clock.__name__}")
    print(f"index build: {build * 1000:.0f} ms; strong bar calibration: {calibrate * 1000:.0f} ms")
    print(
        f"first query of a rare word: median {statistics.median(rare) * 1000:.2f} ms, "
        f"max {max(rare) * 1000:.2f} ms ({len(rare)} words)"
    )
    print(
        f"a word in most skills ({holders:,} hold {frequent[0]!r}): "
        f"first {max(common) * 1000:.1f} ms, later {max(again) * 1000:.1f} ms"
    )
    print(
        f"first query of a word drawn from a body (as often as it occurs): median "
        f"{statistics.median(typical) * 1000:.2f} ms, max {max(typical) * 1000:.2f} ms "
        f"({len(typical)} words)"
    )
    print(f"catch up after a refresh changing 1 skill: {statistics.median(times) * 1000:.2f} ms")
    print_twin(catalog, timer)


def print_twin(catalog: SkillCatalog, timer: Timer) -> None:
    """The index build and first 3-word queries on fresh indexes, C then pure Python."""
    rng = random.Random(7)
    bodies = [entry.raw.decode() for entry in catalog.snapshot.loaded.values()]
    queries = [
        " ".join(rng.choice(search_terms(body)) for body in rng.sample(bodies, 3))
        for _ in range(20)
    ]

    def fresh(native: type[words.Postings] | None) -> tuple[float, float]:
        saved, words.NATIVE = words.NATIVE, native
        try:
            index = SkillSearchIndex(catalog)
            build = timer.once(index.sync)
            index.strong_bar()  # the bar is set (and its terms scored) before the queries
            first = statistics.median(timer.once(lambda q=q: index.search(q)) for q in queries)
        finally:
            words.NATIVE = saved
        return build, first

    if words.NATIVE is None:
        print("the C extension is not built: no twin to compare")
        return
    (c_build, c_query), (py_build, py_query) = fresh(words.NATIVE), fresh(None)
    print(
        f"fresh index build: C postings {c_build * 1000:.0f} ms, pure-Python twin "
        f"{py_build * 1000:.0f} ms (x{py_build / c_build:.2f})"
    )
    print(
        f"first query of 3 words drawn from 3 bodies (median of {len(queries)}): C postings "
        f"{c_query * 1000:.2f} ms, pure-Python twin {py_query * 1000:.2f} ms "
        f"(x{py_query / c_query:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--real-sized", type=int, default=0, help="also time N real-sized skills")
    parser.add_argument(
        "--clock", choices=CLOCKS, default="wall", help="cpu: this process's CPU time only"
    )
    args = parser.parse_args()
    timer = Timer(CLOCKS[args.clock], args.repeat)
    print_quality()
    print_speed(args.size, timer)
    if args.real_sized:
        print_real_sized(args.real_sized, timer)


if __name__ == "__main__":
    main()
