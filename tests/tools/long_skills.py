"""Generated look-alikes of the largest public skills: 40-80 KB bodies with many headings.

Like the real ones they mix heading levels, fenced code (with ``#`` lines that are not
headings), tables, non-ASCII text, quotes and backslashes (which JSON escapes, so a reply is
longer than its text).
"""

from __future__ import annotations

import random

from backends import MemoryBackend
from backends.testing import skill_md

WORDS = ("data", "frame", "plot", "axis", "naïve", "café", '"quoted"', "C:\\path", "`x`", "→")


def long_body(seed: int, size: int) -> str:
    """A markdown body of about ``size`` characters with many headings."""
    rng = random.Random(seed)
    parts = [f"# Skill {seed}\n\nIntroduction.\n\n"]
    length, number = 0, 0
    while length < size:
        number += 1
        level = rng.choice((2, 2, 3, 3, 4))
        lines = [f"{'#' * level} Step {number}: {rng.choice(WORDS)} handling", ""]
        for _ in range(rng.randint(2, 14)):
            lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 40))))
        if rng.random() < 0.3:
            lines += ["```python", "# a comment, not a heading", "print('\\t')", "```"]
        if rng.random() < 0.2:
            lines += ["| a | b |", "|---|---|", "| 1 | 2 |"]
        part = "\n".join(lines) + "\n\n"
        parts.append(part)
        length += len(part)
    return "".join(parts)


def long_skills(count: int = 6) -> MemoryBackend:
    """``count`` skills named ``long-<n>`` with bodies from 40 to 80 KB."""
    skills = {}
    for seed in range(count):
        size = 40_000 + seed * 40_000 // max(count - 1, 1)
        body = long_body(seed, size)
        skills[f"long-{seed}"] = {"SKILL.md": skill_md(f"long-{seed}", "A long skill.", body)}
    return MemoryBackend(skills)
