"""Generated skills of real size for search benchmarks: bodies of 5-40 KB, a long-tailed vocabulary.

Public collections hold SKILL.md bodies of about 5 to 40 KB (median near 12 KB) whose words
follow a long tail: a few thousand common words and many rare ones (identifiers, product
names). Here each body is paragraphs drawn from a shared pool (words picked by a Zipf law over
50,000 made-up words) plus identifiers of its own, so the vocabulary grows with the catalog as
a real one does, and a first query's words must be gathered from every skill.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from itertools import accumulate

_SYLLABLES = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words = dict.fromkeys(
        "".join(rng.choices(_SYLLABLES, k=rng.randint(2, 4))) for _ in range(size * 2)
    )
    return list(words)[:size]


def _paragraphs(seed: int, count: int = 2_000, vocabulary: int = 50_000) -> list[str]:
    rng = random.Random(seed)
    words = _vocabulary(rng, vocabulary)
    weights = list(accumulate(1 / (rank + 1) ** 1.05 for rank in range(vocabulary)))
    return [
        " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(40, 120))) + ".\n\n"
        for _ in range(count)
    ]


def real_sized_skills(count: int, seed: int = 11) -> Iterator[tuple[str, bytes]]:
    """``(name, SKILL.md bytes)`` of ``count`` skills with 5-40 KB bodies (log-uniform)."""
    pool = _paragraphs(seed)
    rng = random.Random(seed + 1)
    for index in range(count):
        name = f"real-{index:05d}"
        size = int(math.exp(rng.uniform(math.log(5_000), math.log(40_000))))
        own = " ".join(f"{name.replace('-', '')}x{k}" for k in range(20))
        parts = [f"# {name}\n\n{own}\n\n"]
        length = len(parts[0])
        while length < size:
            paragraph = rng.choice(pool)
            parts.append(paragraph)
            length += len(paragraph)
        description = " ".join(rng.choice(pool).split()[:25])
        text = f"---\nname: {name}\ndescription: {description}\n---\n\n{''.join(parts)}"
        yield name, text.encode()
