"""What every selector shares, and ``select_skills``: adk-rust's ``adk-skill`` scorer, exactly.

For each query token (repeats counted) a skill earns +4.0 when the token is in its name, +2.5
in its description, +2.0 in its tags and +1.0 in its body, each field taken as a set of tokens
(:func:`~skills_core.context.words.tokenize`); the sum is divided by the square root of the
number of distinct body tokens (at least 1). Skill ``code-search``, described "Search Rust
code with rg", tagged ``[code, search]``, body "Use rg --files then rg." scores 5.5 for "search
rust codebase". Only a query's first :data:`MAX_QUERY_CHARS` characters are read.

Tag filters come first (an excluded tag wins; tags compare case-insensitively), then scores
below ``min_score`` go, then the best ``top_k`` are kept, by score and then name. Ranked search
(:mod:`skills_core.context.search`) ranks free-text requests better.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from skills_core.catalog.catalog import SkillCatalog
from skills_core.catalog.entries import CatalogEntry
from skills_core.context.derived import DerivedSkills
from skills_core.context.words import tokenize, tokenize_bytes
from skills_core.format.models import SkillMetadata

MIN_SCORE = 1.0
"""adk-rust's default lowest score."""

NAME_WEIGHT = 4.0
DESCRIPTION_WEIGHT = 2.5
TAG_WEIGHT = 2.0
BODY_WEIGHT = 1.0

MAX_QUERY_CHARS = 65_536
"""How much of a query is scored: its first 65,536 characters (the crate reads all). A longer
message scores exactly as its first ``MAX_QUERY_CHARS`` characters would (a word cut there
counts as its first part), which bounds what a pasted log or document costs a selection."""


Strength = Literal["strong", "weak"]
STRONG: Strength = "strong"
"""A ranked match scoring above what chance requests reach in its catalog."""
WEAK: Strength = "weak"
"""A ranked match that shares words with the request no better than chance does."""


@dataclass(frozen=True, slots=True)
class SelectionPolicy:
    """Which skills a selection keeps (adk-rust's defaults).

    Attributes:
        top_k: How many matches at most.
        min_score: The lowest score kept; ``None`` for the scorer's own default:
            :data:`MIN_SCORE` (1.0, as adk-rust) for :func:`select_skills`; for ranked
            search, whose scores lie between 0 and 1, every skill sharing a term with the
            request (mechanisms acting without the model then keep strong ones only:
            :func:`confident`).
        include_tags: When set, only skills carrying one of these tags.
        exclude_tags: Skills carrying any of these tags never match.
    """

    top_k: int = 1
    min_score: float | None = None
    include_tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()

    def __post_init__(self) -> None:
        for tags in (self.include_tags, self.exclude_tags):
            if isinstance(tags, str):
                raise TypeError(f"tags must be a sequence of strings, not the string {tags!r}")


@dataclass(frozen=True, slots=True)
class SkillMatch:
    """One selected skill and why.

    Attributes:
        name: The skill's name.
        score: Its score for the query (adk-rust's scale, or ranked search's).
        location: Where its SKILL.md lives.
        metadata: Its frontmatter.
        tags: Its tags: frontmatter ``tags`` then ``metadata.tags``.
        strength: Ranked search's verdict, :data:`STRONG` or :data:`WEAK` (against the
            catalog's calibrated bar); ``None`` from adk-rust's scorer.
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
"""Picks skills for a query, the one selector type every per-turn mechanism takes:
:func:`~skills_core.context.search.rank_skills` (ranked search, the default everywhere) or
:func:`select_skills` (adk-rust's scores, for parity with agents built on the crate)."""


def skill_tags(metadata: SkillMetadata) -> tuple[str, ...]:
    """A skill's tags: frontmatter ``tags``, then comma-separated ``metadata.tags``, deduplicated.

    ``metadata`` holds strings only, so a YAML list there arrives as its text (``"['a', 'b']"``):
    brackets and quotes around each item are dropped.
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
        """How many of the query's tokens (repeats counted) are in ``tokens``.

        The intersection walks the smaller of the two sets, so a long query costs a skill no
        more than its own field.
        """
        return sum(map(self.counts.__getitem__, tokens & self.distinct))


@dataclass(frozen=True, slots=True)
class LexicalSkill(SkillFacts):
    """A skill's fields as the adk-rust scorer sees them: sets of tokens."""

    name_tokens: frozenset[str]
    description_tokens: frozenset[str]
    tag_tokens: frozenset[str]
    body_tokens: frozenset[str]

    @classmethod
    def of(cls, name: str, entry: CatalogEntry, metadata: SkillMetadata) -> LexicalSkill:
        """Tokenize one catalog entry."""
        tags = skill_tags(metadata)
        return cls(
            name,
            entry.location,
            metadata,
            tags,
            frozenset(tokenize(metadata.name)),
            frozenset(tokenize(metadata.description)),
            frozenset(token for tag in tags for token in tokenize(tag)),
            frozenset(tokenize_bytes(entry.raw[entry.body_start :])),
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

    An empty query with no include tags selects nothing; an empty query with include tags
    scores every tagged skill 0 (kept when ``min_score`` is 0). Only the first
    :data:`MAX_QUERY_CHARS` characters of ``query`` are read.
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

    The one gate of every mechanism choosing for the model (injection, the coordinator): a
    skill only a user may invoke (``disable-model-invocation: true``, in the catalog now) goes,
    whatever the selector, a user's own too. The built-in selectors never find one.
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
    """The matches a mechanism acting without the model may use (injection, the coordinator).

    A wrong skill costs there, so weak ranked matches go, unless the policy sets its own
    ``min_score``: then the caller chose the floor and every match above it stays.
    """
    if policy is not None and policy.min_score is not None:
        return list(matches)
    return [match for match in matches if match.strength != WEAK]


def ranked_scores(scores: Mapping[str, float], top_k: int) -> list[tuple[str, float]]:
    """The best ``top_k`` of ``{name: score}``: highest score first, then by name.

    Only the skills scoring at least the ``top_k``-th best score are sorted, and matches are
    made for the ``top_k`` kept alone.
    """
    if len(scores) <= top_k or top_k <= 0:
        pairs = list(scores.items())
    else:
        bar = heapq.nlargest(top_k, scores.values())[-1]
        pairs = [(name, score) for name, score in scores.items() if score >= bar]
    return sorted(pairs, key=lambda pair: (-pair[1], pair[0]))[:top_k]
