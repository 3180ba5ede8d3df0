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
import operator
import random
import sys
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, TypeVar

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
    ENGLISH,
    NATIVE,
    TERMS,
    Languages,
    PythonPostings,
    WordCounts,
    new_postings,
    search_terms,
    skill_language,
    stem_forms,
    terms,
)

if TYPE_CHECKING:
    from skills_core.context._embed import Embedder, SkillVectors

R = TypeVar("R")

K1 = 1.0
"""Term-count saturation: a term's weighted count ``tf`` weighs ``tf / (tf + K1)``."""

NAME_WEIGHT = 1 / 16
TAG_WEIGHT = 1 / 8
BODY_WEIGHT = 1 / 16
"""Weights of a name, tag and body occurrence, where a description occurrence weighs 1."""

DESCRIPTION_B = 0.75
"""How far a description's length normalises its counts (0: not at all, 1: fully)."""
BODY_B = 1.0
"""The same for a body: fully, so a body occurrence weighs ``BODY_WEIGHT * average / length``
(the postings take ``BODY_WEIGHT * average`` as the average length).

The weights and both ``B`` were tuned on real requests (docs/choosing-skills.md, "On real
skills"); names and tags are short and not normalised.
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
    """One skill as the index holds it: term counts by field, body word counts.

    Attributes:
        head: Name and tag terms, each with its weighted count.
        described: The description's word counts.
    """

    head: Mapping[str, float]
    described: WordCounts
    body: WordCounts
    language: str

    @property
    def length(self) -> int:
        """How many words the body holds."""
        return self.body.length


class SkillSearchIndex:
    """A ranked search over one catalog's skills, re-indexing those that changed (thread-safe)."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self._words = new_postings()
        self._languages = Languages()
        self._skills = DerivedSkills(catalog, self._index_skill, BODY_WORDS)
        self._indexed: dict[str, IndexedSkill] = {}
        self._descriptions = new_postings()
        self._heads: dict[str, dict[str, float]] = {}  # term -> {skill: weighted head count}
        self._description_length = 0
        self._kept: dict[str, dict[str, float]] = {}  # term -> _saturated(term), until a change
        self._kept_holders = 0
        self._total_length = 0
        self._bar: float | None = None  # the strong bar, set on first use
        self._changes = 0  # skills added or removed since the bar was set
        self._version = 0  # changes with the skills indexed
        self._dense: SkillVectors | None = None  # the last embedder's vectors
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

        A query without terms finds nothing, unless the policy includes tags (then every skill
        carrying them scores 0) or names an embedder. With an embedder, the scores are fused
        ones over every skill; a skill's lexical score alone makes it strong.

        Raises:
            BodiesNotRead: Skills to index hold no body: use :meth:`search_async`.
        """
        policy = policy or SEARCH_POLICY
        tags = TagFilter(policy.include_tags, policy.exclude_tags)
        dense = None if policy.embedder is None else self._vectors(policy.embedder)
        if dense is not None:
            dense.prepare()
        with self._lock:
            self._sync()
            held = self._saturated
            terms = Counter(self._languages.query_terms(query[:MAX_QUERY_CHARS], held))
            if len(terms) > MAX_QUERY_TERMS:
                terms = Counter(dict(islice(terms.items(), MAX_QUERY_TERMS)))
            if policy.top_k <= 0 or not (terms or tags.include or (dense and query.strip())):
                return []
            scores = lexical = self._scores(terms) if terms else dict.fromkeys(self._indexed, 0.0)
            if dense is not None and query.strip() and self._indexed:
                from skills_core.context._embed import fuse

                indexed = ((name, skill.metadata) for name, skill in self._indexed.items())
                names, rows = dense.matrix(self._version, indexed)
                similarity = dense.similarity(query[:MAX_QUERY_CHARS], rows)
                scores = fuse(names, lexical, similarity, policy.dense_weight)
            bar = self._strong_bar()
            skills = self._indexed
            if tags or policy.min_score is not None or scores is not lexical:
                scores = {
                    name: score
                    for name, score in scores.items()
                    if (score > 0 if policy.min_score is None else score >= policy.min_score)
                    and (not tags or tags.allows(skills[name].tags))
                }  # else every score is above 0 and every skill may be found
            return [
                skills[name].match(score, STRONG if lexical.get(name, 0.0) > bar else WEAK)
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

    def _vectors(self, embedder: Embedder) -> SkillVectors:
        """The vectors of ``embedder``'s model (those of another model are dropped)."""
        from skills_core.context._embed import SkillVectors

        dense = self._dense
        if dense is None or dense.embedder.identity != embedder.identity:
            dense = self._dense = SkillVectors(self.catalog, embedder)
        return dense

    def _index_skill(
        self, name: str, entry: CatalogEntry, metadata: SkillMetadata, body: bytes
    ) -> IndexedSkill:
        """A skill's terms by field in its language; its description's and body's words."""
        tags = skill_tags(metadata)
        language = skill_language(metadata.metadata)
        routing = [
            value
            for key, value in metadata.metadata.items()
            if key != "tags" and any(word in key.lower() for word in ROUTING_KEYS)
        ]
        names = Counter(search_terms(metadata.name, language))
        tagged = Counter(search_terms(" ".join([*tags, *routing]), language))
        head = {
            term: NAME_WEIGHT * names[term] + TAG_WEIGHT * tagged[term] for term in names | tagged
        }
        described = self._descriptions.count(metadata.description.encode("utf-8", "surrogatepass"))
        words = self._words.count(body)
        return IndexedSkill(name, entry.location, metadata, tags, head, described, words, language)

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
            count = len(self._indexed)
            other = self._languages.forms(term)  # words of skills in other languages
            candidates = [*stem_forms(term), *other]
            extra = self._heads.get(term)
            if found := [
                form
                for form in self._descriptions.held(candidates)
                if form in other or TERMS[form] == term
            ]:
                described = self._descriptions.counts(
                    found, DESCRIPTION_B, self._description_length / count
                )
                for name, weighted in (extra or {}).items():
                    described[name] = described.get(name, 0.0) + weighted
                extra = described
            forms = [
                form
                for form in self._words.held(candidates)
                if form in other or TERMS[form] == term
            ]
            average = BODY_WEIGHT * self._total_length / count if count else 0.0
            saturated = self._words.counts(forms, BODY_B, average, extra=extra, k1=K1)
            if self._kept_holders + len(saturated) > MAX_KEPT_HOLDERS:
                self._kept.clear()
                self._kept_holders = 0
            self._kept[term] = saturated
            self._kept_holders += len(saturated)
        return saturated

    def _strong_bar(self) -> float:
        if self._bar is None or self._changes > RECALIBRATE_SHARE * len(self._indexed):
            skills = list(self._indexed.values())
            self._bar = chance_bar(
                len(skills),
                lambda rng: self._chance_term(rng.choice(skills), rng),
                lambda term: len(self._saturated(term)),
                lambda terms: max(self._scores(terms).values(), default=0.0),
            )
            self._changes = 0
        return self._bar

    def _chance_term(self, skill: IndexedSkill, rng: random.Random) -> str:
        """A term of ``skill``'s name, description, tags or body drawn at random."""
        description = search_terms(skill.metadata.description, skill.language)
        head = list(dict.fromkeys([*skill.head, *description]))
        if not len(head) + len(skill.body):
            return ""
        at = rng.randrange(len(head) + len(skill.body))
        if at < len(head):
            return head[at]
        return terms(skill.language)[self._words.word(skill.body, at - len(head))]

    def _sync(self) -> None:
        added, removed = self._skills.sync()
        if not added and not removed:
            return
        self._kept.clear()
        self._kept_holders = 0
        for skill in removed:
            del self._indexed[skill.name]
            self._languages.remove(skill.language, self._body_words(skill))
            self._words.remove(skill.name)
            self._total_length -= skill.length
            self._descriptions.remove(skill.name)
            self._description_length -= skill.described.length
            for term in skill.head:
                holders = self._heads[term]
                del holders[skill.name]
                if not holders:
                    del self._heads[term]
        for skill in added:
            self._indexed[skill.name] = skill
            self._languages.add(skill.language, self._body_words(skill))
            self._total_length += skill.length
            self._description_length += skill.described.length
            for term, n in skill.head.items():
                self._heads.setdefault(term, {})[skill.name] = n
        self._words.add({skill.name: skill.body for skill in added})
        self._descriptions.add({skill.name: skill.described for skill in added})
        self._changes += len(added) + len(removed)
        self._version += 1

    def _body_words(self, skill: IndexedSkill) -> list[str]:
        """The distinct words of a skill's description and body, for a language but English."""
        if skill.language == ENGLISH:
            return []
        body = [self._words.word(skill.body, at) for at in range(len(skill.body))]
        described = [
            self._descriptions.word(skill.described, at) for at in range(len(skill.described))
        ]
        return list(dict.fromkeys([*described, *body]))


def chance_bar(
    count: int,
    draw: Callable[[random.Random], str],
    holders: Callable[[str], int],
    best: Callable[[Counter[str]], float],
) -> float:
    """The strong bar: chance requests' best scores at :data:`CHANCE_QUANTILE` (0 without any).

    Args:
        count: How many skills are searched.
        draw: A term of a skill drawn at random (``""`` when it has none).
        holders: How many skills hold a term.
        best: The best score of a request's terms.
    """
    rng = random.Random(0)
    limit = max(1, int(DISTINCTIVE_SHARE * count))
    scores: list[float] = []
    for _ in range(CHANCE_REQUESTS * DRAWS if count else 0):
        term = draw(rng)
        if term and holders(term) <= limit:
            scores.append(best(Counter([term, UNKNOWN])))
            if len(scores) == CHANCE_REQUESTS:
                break
    scores.sort()
    return scores[min(len(scores) - 1, int(CHANCE_QUANTILE * len(scores)))] if scores else 0.0


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
