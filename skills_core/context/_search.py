"""Ranked search: BM25F over the name, description, tags and whole body of every skill.

Each field counts as authors write it for routing: the description most (normalised by its
length), the name and tags a little, the body least (normalised by its length in full), so a
long, broad skill does not win on generic words. A score is the share of the request's
attainable weight a skill covers, between 0 and 1. A match is ``strong`` above the catalog's
bar, what :data:`CHANCE_REQUESTS` requests made by chance (a distinctive term of a random
skill and a word no skill holds) reach at the :data:`CHANCE_QUANTILE` quantile.
docs/choosing-skills.md ("Ranked search") tells the whole rule.
"""

from __future__ import annotations

import asyncio
import math
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry
from skills_core._format.models import SkillMetadata
from skills_core.context._derived import DerivedSkills, run_with_bodies
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
    TERMS,
    WordCounts,
    new_postings,
    search_terms,
    stem_forms,
    tokenize,
)

R = TypeVar("R")
T = TypeVar("T")

K1 = 16.0
"""Term-count saturation: a term's weighted count ``tf`` weighs ``tf / (tf + K1)``."""

NAME_WEIGHT = 1
DESCRIPTION_WEIGHT = 16
TAG_WEIGHT = 2
"""Weights of a name, description and tag occurrence; a body occurrence weighs 1."""

DESCRIPTION_B = 0.75
BODY_B = 1.0
"""How far a description's and a body's length normalise their counts (0: not at all, 1: fully).

Tuned on real requests (docs/choosing-skills.md, "On real skills"); names and tags are short
and not normalised.
"""

ROUTING_KEYS = ("description", "keyword", "tag", "abstract", "trigger", "category")
"""Frontmatter ``metadata`` keys whose values are scored with the tags: routing text
(``short-description``, ``trigger-keywords``...), not an author or a version."""

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


@dataclass(frozen=True, slots=True)
class IndexedSkill(SkillFacts):
    """One skill as the index holds it: term counts by field, body word counts.

    Attributes:
        head: Name and tag term counts, weighted.
        described: Description term counts (the description holds ``description_length`` tokens).
    """

    head: Mapping[str, int]
    described: Mapping[str, int]
    description_length: int
    body: WordCounts

    @property
    def length(self) -> int:
        """How many words the body holds."""
        return self.body.length


class SkillSearchIndex:
    """A ranked search over one catalog's skills, re-indexing those that changed (thread-safe)."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self._words = new_postings()
        self._skills = DerivedSkills(catalog, self._index_skill)
        self._indexed: dict[str, IndexedSkill] = {}
        self._heads: dict[str, dict[str, float]] = {}  # term -> {skill: weighted head count}
        self._described: dict[str, dict[str, int]] = {}  # term -> {skill: description count}
        self._description_length = 0
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

    def _index_skill(self, name: str, entry: CatalogEntry, metadata: SkillMetadata) -> IndexedSkill:
        """Count a skill's terms by field (name and tags weighted) and its body's words."""
        tags = skill_tags(metadata)
        routing = [
            value
            for key, value in metadata.metadata.items()
            if key != "tags" and any(word in key.lower() for word in ROUTING_KEYS)
        ]
        head = Counter(
            search_terms(metadata.name) * NAME_WEIGHT
            + search_terms(" ".join([*tags, *routing])) * TAG_WEIGHT
        )
        described = Counter(search_terms(metadata.description))
        body = self._words.count(entry.raw[entry.body_start :])
        length = len(tokenize(metadata.description))
        return IndexedSkill(name, entry.location, metadata, tags, head, described, length, body)

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
            saturated = words.counts(forms, BODY_B, average, extra=self._head_counts(term), k1=K1)
            if self._kept_holders + len(saturated) > MAX_KEPT_HOLDERS:
                self._kept.clear()
                self._kept_holders = 0
            self._kept[term] = saturated
            self._kept_holders += len(saturated)
        return saturated

    def _head_counts(self, term: str) -> dict[str, float] | None:
        """``{skill: weighted count}`` of ``term`` in names, tags and descriptions (normalised)."""
        heads = self._heads.get(term)
        described = self._described.get(term)
        if not described:
            return heads
        counts = dict(heads or {})
        average = self._description_length / len(self._indexed)
        indexed = self._indexed
        keep = 1.0 - DESCRIPTION_B
        share = DESCRIPTION_B / average
        for name, n in described.items():
            norm = keep + share * indexed[name].description_length
            counts[name] = counts.get(name, 0.0) + DESCRIPTION_WEIGHT * n / norm
        return counts

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
        """A term of ``skill``'s name, description, tags or body drawn at random."""
        head = list(dict.fromkeys([*skill.head, *skill.described]))
        if not len(head) + len(skill.body):
            return ""
        at = rng.randrange(len(head) + len(skill.body))
        if at < len(head):
            return head[at]
        return TERMS[self._words.word(skill.body, at - len(head))]

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
            self._description_length -= skill.description_length
            _unpost(self._heads, skill.name, skill.head)
            _unpost(self._described, skill.name, skill.described)
        for skill in added:
            self._indexed[skill.name] = skill
            self._total_length += skill.length
            self._description_length += skill.description_length
            for term, n in skill.head.items():
                self._heads.setdefault(term, {})[skill.name] = n
            for term, n in skill.described.items():
                self._described.setdefault(term, {})[skill.name] = n
        self._words.add({skill.name: skill.body for skill in added})
        self._changes += len(added) + len(removed)


def _unpost(posted: dict[str, dict[str, T]], name: str, terms: Iterable[str]) -> None:
    """Take skill ``name`` off the ``{term: {skill: count}}`` postings of ``terms``."""
    for term in terms:
        holders = posted[term]
        del holders[name]
        if not holders:
            del posted[term]


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
