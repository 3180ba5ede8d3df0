"""How strong a ranked-search score is in one catalog: requests made by chance set the bar.

A ranked-search score is the share of a request's weight that a skill covers, but the share a
skill reaches by chance moves with the catalog: with its vocabulary (among bioinformatics
skills "gene" tells little), its size, and how much text each skill holds. So each index
calibrates itself on its own skills. It writes :data:`CHANCE_REQUESTS` requests shaped as
those no skill fits usually are, one word a skill holds and one word no skill holds ("a joke
about *notes*", "the weather in *Lisbon*"): the first is a term of a skill drawn at random (a
fixed seed, so the same catalog gives the same bar) among those at most
:data:`DISTINCTIVE_SHARE` of the skills hold. It scores them as any request and takes
the :data:`CHANCE_QUANTILE` quantile of their best scores as the bar. A match scoring above
what such chance requests reach is ``strong``; at or below it, ``weak``.

On 164 real skills of four public collections the bar is 0.32; in a catalog of two small
skills it is 0.22 (``docs/choosing-skills.md`` has the measurements).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

CHANCE_REQUESTS = 32
CHANCE_QUANTILE = 0.9
DISTINCTIVE_SHARE = 0.1
"""A chance request's word is held by at most this share of the skills (at least by one): a
word nearly every skill holds ("api" in a catalog of API skills) tells nothing, and requests
sharing only such words already score near 0."""
DRAWS = 8
"""Draws per chance request at most, to find a distinctive word."""
RECALIBRATE_SHARE = 0.05
"""The bar is set again once this share of the catalog's skills was added or removed."""

UNKNOWN = "no skill holds this"
"""A term no skill can hold (terms never contain spaces)."""

Draw = Callable[[random.Random], str]
"""A term of a skill drawn at random (``""`` when it has none)."""


def chance_requests(
    count: int, draw: Draw, frequency: Callable[[str], int], seed: int = 0
) -> list[Counter[str]]:
    """Requests of a distinctive term drawn from the catalog and a word no skill holds.

    Args:
        count: How many skills the catalog holds.
        draw: Draws a term of a random skill.
        frequency: How many skills hold a term.
        seed: The random seed (fixed: the same catalog gives the same requests).
    """
    rng = random.Random(seed)
    limit = max(1, int(DISTINCTIVE_SHARE * count))
    requests: list[Counter[str]] = []
    for _ in range(CHANCE_REQUESTS * DRAWS if count else 0):
        term = draw(rng)
        if term and frequency(term) <= limit:
            requests.append(Counter([term, UNKNOWN]))
            if len(requests) == CHANCE_REQUESTS:
                break
    return requests


def strong_bar(
    count: int,
    draw: Draw,
    frequency: Callable[[str], int],
    best_score: Callable[[Counter[str]], float],
) -> float:
    """The score above which a match is strong: what chance requests reach at the quantile.

    A catalog without a distinctive term has no chance requests: its bar is 0.
    """
    requests = chance_requests(count, draw, frequency)
    best = sorted(best_score(request) for request in requests)
    if not best:
        return 0.0
    return best[min(len(best) - 1, int(CHANCE_QUANTILE * len(best)))]
