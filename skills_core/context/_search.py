"""Ranked search: BM25F over the name, description, tags and whole body of every skill.

A score is the share of the request's attainable weight a skill covers, between 0 and 1. A
match is ``strong`` above the catalog's bar, what :data:`CHANCE_REQUESTS` requests made by
chance (a distinctive term of a random skill and a word no skill holds) reach at the
:data:`CHANCE_QUANTILE` quantile. docs/choosing-skills.md ("Ranked search") tells the whole rule.
"""

from __future__ import annotations

import asyncio
import math
import operator
import random
import sys
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from skills_core._catalog.cache import code_version
from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry
from skills_core._format.models import SkillMetadata
from skills_core.context._derived import BodyPart, DerivedSkills, run_with_bodies
from skills_core.context._selection import (
    MAX_QUERY_CHARS,
    STRONG,
    WEAK,
    SelectionPolicy,
    Selector,
    SkillFacts,
    SkillMatch,
    TagFilter,
    lexical_skills,
    ranked_scores,
    select_skills,
    skill_tags,
)
from skills_core.context._words import (
    NATIVE,
    TERMS,
    PythonPostings,
    WordCounts,
    new_postings,
    search_terms,
    stem_forms,
)

R = TypeVar("R")

K1 = 1.2
"""Term-count saturation: a term's count ``tf`` weighs ``tf / (tf + K1)``, nearer 1 as it grows."""

B = 0.75
"""How far a body's length normalises its counts (0: not at all, 1: fully)."""

NAME_WEIGHT = 3
DESCRIPTION_WEIGHT = 2
TAG_WEIGHT = 2

MAX_QUERY_TERMS = 1_000
"""How many distinct terms of a query are scored (the first)."""

MAX_KEPT_HOLDERS = 1_000_000
"""How many (term, skill) scores searches keep between catalog changes, in all."""

CHANCE_REQUESTS = 32
CHANCE_QUANTILE = 0.9
DISTINCTIVE_SHARE = 0.1
"""A chance request's term is held by at most this share of the skills (at least by one)."""
DRAWS = 8
"""Draws per chance request at most, to find a distinctive term."""
RECALIBRATE_SHARE = 0.05
"""The bar is set again once this share of the catalog's skills was added or removed."""
UNKNOWN = "no skill holds this"
"""A term no skill can hold (terms never contain spaces)."""

SEARCH_POLICY = SelectionPolicy(top_k=5)

_COUNTER = PythonPostings()


def counted_words(body: bytes) -> bytes:
    """A body's words, each as often as it holds it, in order of first occurrence.

    :class:`~skills_core.context._words.Postings` counts them as it counts the body; this is
    what the persistent cache keeps of a body for search (``BODY_WORDS``).
    """
    counts = _COUNTER.count(body).counts
    return "".join(map(operator.mul, (f"{word} " for word in counts), counts.values())).encode()


_WORDS_CODE = (PythonPostings, *([NATIVE] if NATIVE is not None else []))
BODY_WORDS = BodyPart(
    "body words " + code_version(*(sys.modules[c.__module__].__file__ or "" for c in _WORDS_CODE)),
    counted_words,
)
"""What search keeps of a body, named with the version of the code that cuts words."""


@dataclass(frozen=True, slots=True)
class IndexedSkill(SkillFacts):
    """One skill as the index holds it: weighted ``head`` term counts, ``body`` word counts."""

    head: Mapping[str, int]
    body: WordCounts

    @property
    def length(self) -> int:
        """How many words the body holds."""
        return self.body.length


class SkillSearchIndex:
    """A ranked search over one catalog's skills, re-indexing those that changed (thread-safe)."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self._words = new_postings()
        self._skills = DerivedSkills(catalog, self._index_skill, BODY_WORDS)
        self._indexed: dict[str, IndexedSkill] = {}
        self._heads: dict[str, dict[str, float]] = {}  # term -> {skill: weighted head count}
        self._kept: dict[str, dict[str, float]] = {}  # term -> _saturated(term), until a change
        self._kept_holders = 0
        self._total_length = 0
        self._bar: float | None = None  # the strong bar, set on first use
        self._changes = 0  # skills added or removed since the bar was set
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._sync()
            return len(self._indexed)

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog searched."""
        return self._skills.catalog

    @property
    def indexed(self) -> int:
        """How many skills were indexed so far (a refresh that changed one skill adds 1)."""
        return self._skills.derived

    def sync(self) -> None:
        """Catch up with the catalog now (searches do this themselves)."""
        with self._lock:
            self._sync()

    def strong_bar(self) -> float:
        """The score above which a match is strong in this catalog now."""
        with self._lock:
            self._sync()
            return self._strong_bar()

    def search(self, query: str, policy: SelectionPolicy | None = None) -> list[SkillMatch]:
        """The skills best fitting ``query``, best first (default policy: :data:`SEARCH_POLICY`).

        A query without terms finds nothing, unless the policy includes tags: then every skill
        carrying them scores 0.

        Raises:
            BodiesNotRead: Skills to index hold no body: use :meth:`search_async`.
        """
        policy = policy or SEARCH_POLICY
        tags = TagFilter(policy.include_tags, policy.exclude_tags)
        terms = Counter(search_terms(query[:MAX_QUERY_CHARS]))
        if len(terms) > MAX_QUERY_TERMS:
            terms = Counter(dict(islice(terms.items(), MAX_QUERY_TERMS)))
        if policy.top_k <= 0 or (not terms and not tags.include):
            return []
        with self._lock:
            self._sync()
            scores = self._scores(terms) if terms else dict.fromkeys(self._indexed, 0.0)
            bar = self._strong_bar()
            skills = self._indexed
            if tags or policy.min_score is not None:
                scores = {
                    name: score
                    for name, score in scores.items()
                    if (score > 0 if policy.min_score is None else score >= policy.min_score)
                    and (not tags or tags.allows(skills[name].tags))
                }  # else every score is above 0 and every skill may be found
            return [
                skills[name].match(score, STRONG if score > bar else WEAK)
                for name, score in ranked_scores(scores, policy.top_k)
            ]

    async def search_async(
        self, query: str, policy: SelectionPolicy | None = None
    ) -> list[SkillMatch]:
        """:meth:`search` in a worker thread, after reading the bodies the catalog does not hold."""
        return await run_with_bodies(self.read_bodies, lambda: self.search(query, policy))

    async def read_bodies(self) -> int:
        """Read the bodies the next sync indexes that the catalog does not hold; how many."""
        return await self._skills.read_bodies()

    def _index_skill(
        self, name: str, entry: CatalogEntry, metadata: SkillMetadata, body: bytes
    ) -> IndexedSkill:
        """Count a skill's head terms, weighted by field, and its body's words (or BODY_WORDS')."""
        tags = skill_tags(metadata)
        head = Counter(
            search_terms(metadata.name) * NAME_WEIGHT
            + search_terms(metadata.description) * DESCRIPTION_WEIGHT
            + search_terms(" ".join(tags)) * TAG_WEIGHT
        )
        words = self._words.count(body)
        return IndexedSkill(name, entry.location, metadata, tags, head, words)

    def _scores(self, terms: Mapping[str, int]) -> dict[str, float]:
        """Each matching skill's share of the query's attainable weight (not to be changed)."""
        count = len(self._indexed)
        weighted = []
        for term, repeats in terms.items():
            saturated = self._saturated(term)
            frequency = len(saturated)
            weight = repeats * math.log(1.0 + (count - frequency + 0.5) / (frequency + 0.5))
            weighted.append((saturated, weight))
        if len(weighted) == 1:
            return weighted[0][0]  # one term: the scores are its saturated counts
        total = sum(weight for _, weight in weighted)
        scores: dict[str, float] = {}
        for saturated, weight in weighted:
            share = weight / total
            if not scores:
                scores = {name: value * share for name, value in saturated.items()}
                continue
            for name, value in saturated.items():
                scores[name] = scores.get(name, 0.0) + value * share
        return scores

    def _saturated(self, term: str) -> dict[str, float]:
        """``{skill: tf / (tf + K1)}`` of every skill holding ``term``, kept until a change."""
        saturated = self._kept.get(term)
        if saturated is None:
            words = self._words
            forms = [form for form in words.held(stem_forms(term)) if TERMS[form] == term]
            average = self._total_length / len(self._indexed) if self._indexed else 0.0
            extra = self._heads.get(term)
            saturated = words.counts(forms, B, average, extra=extra, k1=K1)
            if self._kept_holders + len(saturated) > MAX_KEPT_HOLDERS:
                self._kept.clear()
                self._kept_holders = 0
            self._kept[term] = saturated
            self._kept_holders += len(saturated)
        return saturated

    def _strong_bar(self) -> float:
        if self._bar is None or self._changes > RECALIBRATE_SHARE * len(self._indexed):
            self._bar = self._calibrate()
            self._changes = 0
        return self._bar

    def _calibrate(self) -> float:
        """The chance requests' best scores at :data:`CHANCE_QUANTILE` (0 without any)."""
        skills = list(self._indexed.values())
        rng = random.Random(0)
        limit = max(1, int(DISTINCTIVE_SHARE * len(skills)))
        best: list[float] = []
        for _ in range(CHANCE_REQUESTS * DRAWS if skills else 0):
            term = self._chance_term(rng.choice(skills), rng)
            if term and len(self._saturated(term)) <= limit:
                best.append(max(self._scores(Counter([term, UNKNOWN])).values(), default=0.0))
                if len(best) == CHANCE_REQUESTS:
                    break
        best.sort()
        return best[min(len(best) - 1, int(CHANCE_QUANTILE * len(best)))] if best else 0.0

    def _chance_term(self, skill: IndexedSkill, rng: random.Random) -> str:
        """A term of ``skill``'s head or body drawn at random."""
        heads = len(skill.head)
        if not heads + len(skill.body):
            return ""
        at = rng.randrange(heads + len(skill.body))
        if at < heads:
            return list(skill.head)[at]
        return TERMS[self._words.word(skill.body, at - heads)]

    def _sync(self) -> None:
        added, removed = self._skills.sync()
        if not added and not removed:
            return
        self._kept.clear()
        self._kept_holders = 0
        for skill in removed:
            del self._indexed[skill.name]
            self._words.remove(skill.name)
            self._total_length -= skill.length
            for term in skill.head:
                holders = self._heads[term]
                del holders[skill.name]
                if not holders:
                    del self._heads[term]
        for skill in added:
            self._indexed[skill.name] = skill
            self._total_length += skill.length
            for term, n in skill.head.items():
                self._heads.setdefault(term, {})[skill.name] = n
        self._words.add({skill.name: skill.body for skill in added})
        self._changes += len(added) + len(removed)


def search_index(catalog: SkillCatalog) -> SkillSearchIndex:
    """The search index of ``catalog``, shared by all its users and freed with it."""
    return catalog.attached(SkillSearchIndex, lambda: SkillSearchIndex(catalog))


def rank_skills(
    catalog: SkillCatalog, query: str, policy: SelectionPolicy | None = None
) -> list[SkillMatch]:
    """Ranked search with :func:`~skills_core.context._selection.select_skills`'s signature."""
    return search_index(catalog).search(query, policy)


async def run_selection(catalog: SkillCatalog, selector: Selector, work: Callable[[], R]) -> R:
    """``work()``, which selects with ``selector`` on ``catalog``, in a worker thread.

    For the built-in selectors, the bodies the catalog does not hold are read first.
    """
    if selector is rank_skills:
        return await run_with_bodies(search_index(catalog).read_bodies, work)
    if selector is select_skills:
        return await run_with_bodies(lexical_skills(catalog).read_bodies, work)
    return await asyncio.to_thread(work)
