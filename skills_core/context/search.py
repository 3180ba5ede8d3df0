"""Ranked skill search: BM25 over field-weighted term counts of name, description, tags, body.

Each skill is indexed as one bag of words in which a name word counts 3 times, a description
or tag word twice and a word of the body's opening once (BM25F with these field weights and no
length normalisation: descriptions and the indexed opening of bodies are short and of similar
length). A query term's weight is its inverse document frequency times the saturated count
(``k1 = 1.2``); plurals match singulars ("forms" finds "form", "queries" "query").

The score is the share of the query's attainable weight a skill covers, between 0 and 1:
words no skill contains lower every score, so "book a table for two" scores low even where one
skill mentions tables. :data:`MIN_SCORE` keeps such queries empty
(``docs/choosing-skills.md`` has the measurements).

Indexing a skill is tokenizing it and counting its words, all in C; a skill's counts never
depend on other skills, so a refresh that changes 1 skill of 10,000 re-indexes that one. The
postings of a word are gathered the first time a query uses it and then kept up to date.
"""

from __future__ import annotations

import asyncio
import math
import threading
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.context.derived import DerivedSkills
from skills_core.context.selection import (
    SelectionPolicy,
    SkillFacts,
    SkillMatch,
    TagFilter,
    ranked,
    skill_tags,
)
from skills_core.context.tokens import STOPWORDS, stem, tokenize, tokenize_bytes
from skills_core.format.models import SkillMetadata

K1 = 1.2
"""Term-count saturation: a term's weight approaches ``K1 + 1`` as it repeats."""

NAME_WEIGHT = 3
DESCRIPTION_WEIGHT = 2
TAG_WEIGHT = 2
BODY_WEIGHT = 1

DEFAULT_BODY_CHARS = 1_000
"""How much of each body is indexed by default: its title and opening."""

MIN_SCORE = 0.25
"""The default lowest score kept: queries that no skill fits come back empty."""

SEARCH_POLICY = SelectionPolicy(top_k=5)
"""The default policy of ranked search: the five best skills scoring at least ``MIN_SCORE``."""


@dataclass(frozen=True, slots=True)
class IndexedSkill(SkillFacts):
    """One skill as the index holds it: what a match reports, and its weighted word counts."""

    counts: dict[str, int]


def index_skill(
    name: str, entry: CatalogEntry, metadata: SkillMetadata, body_chars: int
) -> IndexedSkill:
    """Count the words of one skill, each field's words repeated by its weight."""
    tags = skill_tags(metadata)
    body = entry.raw[entry.body_start : entry.body_start + body_chars]
    if len(entry.raw) - entry.body_start > body_chars:
        body = body.rpartition(b" ")[0]  # no half word at the cut
    words = (
        tokenize(metadata.name) * NAME_WEIGHT
        + tokenize(metadata.description) * DESCRIPTION_WEIGHT
        + tokenize(" ".join(tags)) * TAG_WEIGHT
        + tokenize_bytes(body) * BODY_WEIGHT
    )
    return IndexedSkill(name, entry.location, metadata, tags, Counter(words))


def forms(term: str) -> tuple[str, ...]:
    """The words a query term matches: itself and its regular plurals or singular."""
    singular = stem(term)
    plurals = [singular + "s", singular + "es"]
    if singular.endswith("y"):
        plurals.append(singular[:-1] + "ies")
    return tuple(dict.fromkeys([term, singular, *plurals]))


_SATURATED = [count * (K1 + 1.0) / (count + K1) for count in range(64)]


def _saturated(count: int) -> float:
    return _SATURATED[count] if count < 64 else count * (K1 + 1.0) / (count + K1)


class SkillSearchIndex:
    """A ranked search over one catalog's skills, kept in step with it.

    Every search first catches up with the catalog's current snapshot, re-indexing only the
    skills that changed. Thread-safe.

    Args:
        catalog: The skills to search.
        body_chars: How much of each body to index.
    """

    def __init__(self, catalog: SkillCatalog, *, body_chars: int = DEFAULT_BODY_CHARS) -> None:
        self._skills = DerivedSkills(
            catalog, lambda name, entry, metadata: index_skill(name, entry, metadata, body_chars)
        )
        self._indexed: dict[str, IndexedSkill] = {}
        self._counts: dict[str, dict[str, int]] = {}  # skill -> its word counts
        self._vocabulary: set[str] = set()  # every word indexed (removed skills' words stay)
        self._postings: dict[str, dict[str, int]] = {}  # word -> {skill: count}, once asked
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

    def search(self, query: str, policy: SelectionPolicy | None = None) -> list[SkillMatch]:
        """The skills best fitting ``query``, best first (default policy: :data:`SEARCH_POLICY`).

        A query without terms (empty, or stopwords only) finds nothing, unless the policy
        includes tags: then every skill carrying them scores 0 (kept when ``min_score`` is 0).
        """
        policy = policy or SEARCH_POLICY
        tags = TagFilter(policy.include_tags, policy.exclude_tags)
        terms = Counter(stem(token) for token in tokenize(query) if token not in STOPWORDS)
        if policy.top_k <= 0 or (not terms and not tags.include):
            return []
        min_score = MIN_SCORE if policy.min_score is None else policy.min_score
        with self._lock:
            self._sync()
            scores = self._scores(terms) if terms else dict.fromkeys(self._indexed, 0.0)
            skills = self._indexed
            matches = [
                skills[name].match(score)
                for name, score in scores.items()
                if score >= min_score and (not tags or tags.allows(skills[name].tags))
            ]
        return ranked(matches, policy.top_k)

    async def search_async(
        self, query: str, policy: SelectionPolicy | None = None
    ) -> list[SkillMatch]:
        """:meth:`search` in a worker thread: a first search of a large catalog indexes it."""
        return await asyncio.to_thread(self.search, query, policy)

    def _scores(self, terms: Counter[str]) -> dict[str, float]:
        """Each matching skill's share of the query's attainable weight."""
        count = len(self._indexed)
        scores: dict[str, float] = {}
        attainable = 0.0
        for term, repeats in terms.items():
            counts = self._term_counts(term)
            frequency = len(counts)
            weight = repeats * math.log(1.0 + (count - frequency + 0.5) / (frequency + 0.5))
            attainable += weight * (K1 + 1.0)
            for name, found in counts.items():
                scores[name] = scores.get(name, 0.0) + weight * _saturated(found)
        return {name: score / attainable for name, score in scores.items()}

    def _term_counts(self, term: str) -> dict[str, int]:
        """``{skill: count}`` of a query term's forms in every skill that holds one."""
        merged: dict[str, int] = {}
        for form in forms(term):
            if form not in self._vocabulary:  # no skill ever held it: nothing to gather
                continue
            for name, found in self._postings_of(form).items():
                merged[name] = merged.get(name, 0) + found
        return merged

    def _postings_of(self, word: str) -> dict[str, int]:
        postings = self._postings.get(word)
        if postings is None:
            postings = self._postings[word] = {
                name: counts[word] for name, counts in self._counts.items() if word in counts
            }
        return postings

    def _sync(self) -> None:
        added, removed = self._skills.sync()
        for skill in removed:
            del self._indexed[skill.name], self._counts[skill.name]
            for word in self._asked(skill.counts):
                del self._postings[word][skill.name]
        for skill in added:
            self._indexed[skill.name] = skill
            self._counts[skill.name] = skill.counts
            self._vocabulary.update(skill.counts)
            for word in self._asked(skill.counts):
                self._postings[word][skill.name] = skill.counts[word]

    def _asked(self, counts: dict[str, int]) -> Iterable[str]:
        """The words of ``counts`` whose postings exist."""
        postings = self._postings
        if len(counts) < len(postings):
            return [word for word in counts if word in postings]
        return [word for word in postings if word in counts]


_SHARED: weakref.WeakKeyDictionary[SkillCatalog, SkillSearchIndex] = weakref.WeakKeyDictionary()


def search_index(catalog: SkillCatalog) -> SkillSearchIndex:
    """The search index of ``catalog`` with default settings, shared by all its users."""
    index = _SHARED.get(catalog)
    if index is None:
        index = _SHARED[catalog] = SkillSearchIndex(catalog)
    return index


def rank_skills(
    catalog: SkillCatalog, query: str, policy: SelectionPolicy | None = None
) -> list[SkillMatch]:
    """Ranked search with :func:`~skills_core.context.selection.select_skills`'s signature."""
    return search_index(catalog).search(query, policy)
