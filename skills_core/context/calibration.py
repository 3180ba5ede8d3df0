"""How strong a ranked-search score is in one catalog: requests made by chance set the bar.

A ranked-search score is the share of a request's weight that a skill covers, but the share a
skill reaches by chance moves with the catalog: with its vocabulary (among bioinformatics
skills "gene" tells little), its size, and how much text each skill holds. So each index
calibrates itself on its own skills. It writes :data:`CHANCE_REQUESTS` requests shaped as
those no skill fits usually are, one word a skill holds and one word no skill holds ("a joke
about *notes*", "the weather in *Lisbon*"): the first is a term of a skill drawn at random (a
fixed seed, so the same catalog gives the same bar). It scores them as any request and takes
the :data:`CHANCE_QUANTILE` quantile of their best scores as the bar. A match scoring above
what such chance requests reach is ``strong``; at or below it, ``weak``.

On 164 real skills of four public collections the bar is 0.30; in a catalog of two small
skills it is 0.22 (``docs/choosing-skills.md`` has the measurements).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

CHANCE_REQUESTS = 32
CHANCE_QUANTILE = 0.9
RECALIBRATE_SHARE = 0.05
"""The bar is set again once this share of the catalog's skills was added or removed."""

UNKNOWN = "no skill holds this"
"""A term no skill can hold (terms never contain spaces)."""


def chance_requests(
    skills: Sequence[T], term_of: Callable[[T, random.Random], str], seed: int = 0
) -> list[Counter[str]]:
    """Requests of a random skill's term (``""``: it has none) and a word no skill holds."""
    rng = random.Random(seed)
    if not skills:
        return []
    terms = (term_of(rng.choice(skills), rng) for _ in range(CHANCE_REQUESTS))
    return [Counter([term, UNKNOWN]) for term in terms if term]


def strong_bar(
    skills: Sequence[T],
    term_of: Callable[[T, random.Random], str],
    best_score: Callable[[Counter[str]], float],
) -> float:
    """The score above which a match is strong: what chance requests reach at the quantile.

    A catalog without terms has no chance requests: its bar is 0.
    """
    best = sorted(best_score(request) for request in chance_requests(skills, term_of))
    if not best:
        return 0.0
    return best[min(len(best) - 1, int(CHANCE_QUANTILE * len(best)))]
