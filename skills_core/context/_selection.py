"""What every selector shares, and ``select_skills``: adk-rust's ``adk-skill`` scorer, exactly.

The scores and filters are told in docs/choosing-skills.md ("Selection: adk-rust's scores").
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from skills_core._catalog.catalog import SkillCatalog
from skills_core._catalog.entries import CatalogEntry
from skills_core._format.models import SkillMetadata
from skills_core.context._derived import DerivedSkills
from skills_core.context._words import tokenize, tokenize_bytes

if TYPE_CHECKING:
    from skills_core.context._embed import Embedder

MIN_SCORE = 1.0
"""adk-rust's default lowest score."""

NAME_WEIGHT = 4.0
DESCRIPTION_WEIGHT = 2.5
TAG_WEIGHT = 2.0
BODY_WEIGHT = 1.0

MAX_QUERY_CHARS = 65_536
"""How much of a query is scored: its first characters (the crate reads all)."""


Strength = Literal["strong", "weak"]
STRONG: Strength = "strong"
"""A ranked match scoring above what chance requests reach in its catalog."""
WEAK: Strength = "weak"
"""A ranked match that shares words with the request no better than chance does."""


@dataclass(frozen=True, slots=True)
class SelectionPolicy:
    """Which skills a selection keeps (adk-rust's defaults).

    Attributes:
        min_score: The lowest score kept; ``None``: :data:`MIN_SCORE` for
            :func:`select_skills`, any shared term for ranked search (strong ones only for
            mechanisms acting without the model: :func:`confident`).
        exclude_tags: Skills carrying any of these tags never match (wins over include).
        embedder: Ranked search fuses its lexical score with this model's similarity
            (semantic retrieval; :func:`select_skills` ignores it).
        dense_weight: The similarity's share of the fused score, from 0 to 1.
    """

    top_k: int = 1
    min_score: float | None = None
    include_tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()
    embedder: Embedder | None = None
    dense_weight: float = 0.5

    def __post_init__(self) -> None:
        if not 0 <= self.dense_weight <= 1:
            raise ValueError(f"dense_weight must be from 0 to 1, not {self.dense_weight!r}")
        for tags in (self.include_tags, self.exclude_tags):
            if isinstance(tags, str):
                raise TypeError(f"tags must be a sequence of strings, not the string {tags!r}")


@dataclass(frozen=True, slots=True)
class SkillMatch:
    """One selected skill and why.

    Attributes:
        tags: Frontmatter ``tags`` then ``metadata.tags``.
        strength: Ranked search's verdict, :data:`STRONG` or :data:`WEAK`; ``None`` from
            adk-rust's scorer.
    """

    name: str
    score: float
    location: str
    metadata: SkillMetadata = field(repr=False)
    tags: tuple[str, ...] = ()
    strength: Strength | None = None

    @property
    def description(self) -> str:
        """What the skill does and when to use it."""
        return self.metadata.description


Selector = Callable[[SkillCatalog, str, SelectionPolicy | None], list[SkillMatch]]
"""Picks skills for a query: ``rank_skills`` (the default everywhere) or :func:`select_skills`."""


def skill_tags(metadata: SkillMetadata) -> tuple[str, ...]:
    """A skill's tags: frontmatter ``tags``, then comma-separated ``metadata.tags``, deduplicated.

    Brackets and quotes around each item are dropped (a YAML list there arrives as text).
    """
    extra = metadata.metadata.get("tags", "")
    items = [*metadata.tags, *(item.strip(" \t[]'\"") for item in extra.split(","))]
    return tuple(dict.fromkeys(item for item in items if item))


class TagFilter:
    """adk-rust's tag rule: an excluded tag wins; with include tags, one must be present."""

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self.include = frozenset(tag.lower() for tag in include)
        self.exclude = frozenset(tag.lower() for tag in exclude)

    def __bool__(self) -> bool:
        return bool(self.include or self.exclude)

    def allows(self, tags: Collection[str]) -> bool:
        """True when a skill with ``tags`` passes."""
        lowered = {tag.lower() for tag in tags}
        if not self.exclude.isdisjoint(lowered):
            return False
        return not self.include or not self.include.isdisjoint(lowered)


@dataclass(frozen=True, slots=True)
class SkillFacts:
    """What a match reports of a skill; scorers keep it with what they score on."""

    name: str
    location: str
    metadata: SkillMetadata = field(repr=False)
    tags: tuple[str, ...]

    def match(self, score: float, strength: Strength | None = None) -> SkillMatch:
        """This skill as a match with ``score``."""
        return SkillMatch(self.name, score, self.location, self.metadata, self.tags, strength)


class QueryTokens:
    """The distinct tokens of a query's first :data:`MAX_QUERY_CHARS` characters, counted."""

    def __init__(self, query: str) -> None:
        self.counts = Counter(tokenize(query[:MAX_QUERY_CHARS]))
        self.distinct = frozenset(self.counts)

    def __bool__(self) -> bool:
        return bool(self.counts)

    def occurrences(self, tokens: frozenset[str]) -> int:
        """How many of the query's tokens (repeats counted) are in ``tokens``."""
        return sum(map(self.counts.__getitem__, tokens & self.distinct))


@dataclass(frozen=True, slots=True)
class LexicalSkill(SkillFacts):
    """A skill's fields as the adk-rust scorer sees them: sets of tokens."""

    name_tokens: frozenset[str]
    description_tokens: frozenset[str]
    tag_tokens: frozenset[str]
    body_tokens: frozenset[str]

    @classmethod
    def of(
        cls, name: str, entry: CatalogEntry, metadata: SkillMetadata, body: bytes
    ) -> LexicalSkill:
        """Tokenize one catalog entry and its SKILL.md body."""
        tags = skill_tags(metadata)
        return cls(
            name,
            entry.location,
            metadata,
            tags,
            frozenset(tokenize(metadata.name)),
            frozenset(tokenize(metadata.description)),
            frozenset(token for tag in tags for token in tokenize(tag)),
            frozenset(tokenize_bytes(body)),
        )

    def score(self, query: QueryTokens) -> float:
        """The adk-rust score of this skill for the query's tokens."""
        total = (
            NAME_WEIGHT * query.occurrences(self.name_tokens)
            + DESCRIPTION_WEIGHT * query.occurrences(self.description_tokens)
            + TAG_WEIGHT * query.occurrences(self.tag_tokens)
            + BODY_WEIGHT * query.occurrences(self.body_tokens)
        )
        return total / math.sqrt(max(len(self.body_tokens), 1))


def lexical_skills(catalog: SkillCatalog) -> DerivedSkills[LexicalSkill]:
    """The tokenized skills of ``catalog``, shared by every selection on it and freed with it."""
    return catalog.attached(LexicalSkill, lambda: DerivedSkills(catalog, LexicalSkill.of))


def select_skills(
    catalog: SkillCatalog, query: str, policy: SelectionPolicy | None = None
) -> list[SkillMatch]:
    """The skills of ``catalog`` that best fit ``query``, scored as adk-rust does.

    An empty query selects nothing, unless tags are included: then every tagged skill scores 0.
    """
    policy = policy or SelectionPolicy()
    tags = TagFilter(policy.include_tags, policy.exclude_tags)
    tokens = QueryTokens(query)
    if policy.top_k <= 0 or (not tokens and not tags.include):
        return []
    min_score = MIN_SCORE if policy.min_score is None else policy.min_score
    kept = [
        (skill, score)
        for skill in lexical_skills(catalog).values()
        if tags.allows(skill.tags)
        for score in (skill.score(tokens),)
        if score >= min_score
    ]
    skills = {skill.name: skill for skill, _ in kept}
    best = ranked_scores({skill.name: score for skill, score in kept}, policy.top_k)
    return [skills[name].match(score) for name, score in best]


def model_choices(
    selector: Selector, catalog: SkillCatalog, query: str, policy: SelectionPolicy | None
) -> list[SkillMatch]:
    """``selector``'s :func:`confident` matches for ``query`` a model may be given, best first.

    The one gate of every mechanism choosing for the model: user-only skills go, whatever the
    selector.
    """
    matches = confident(selector(catalog, query, policy), policy)
    loaded = catalog.snapshot.loaded
    return [
        match
        for match in matches
        if (entry := loaded.get(match.name)) is not None
        and entry.metadata is not None
        and entry.metadata.model_invocable
    ]


def confident(matches: Iterable[SkillMatch], policy: SelectionPolicy | None) -> list[SkillMatch]:
    """What a mechanism acting without the model may use: no weak match (unless ``min_score``)."""
    if policy is not None and policy.min_score is not None:
        return list(matches)
    return [match for match in matches if match.strength != WEAK]


def ranked_scores(scores: Mapping[str, float], top_k: int) -> list[tuple[str, float]]:
    """The best ``top_k`` of ``{name: score}``: highest score first, then by name."""
    if len(scores) <= top_k or top_k <= 0:
        pairs = list(scores.items())
    else:
        bar = heapq.nlargest(top_k, scores.values())[-1]
        pairs = [(name, score) for name, score in scores.items() if score >= bar]
    return sorted(pairs, key=lambda pair: (-pair[1], pair[0]))[:top_k]
