"""How much of a catalog fits a budget: every name kept for as long as names fit.

A catalog over its budget (in characters; about 4 per token) degrades one form at a time,
richest first, and says so in a note the model reads:

1. ``full``: every skill's entry, description whole (no note: nothing was left out);
2. ``short``: every entry, descriptions cut to the longest length that fits (at least
   :data:`MIN_DESCRIPTION_CHARS`), cut at a word and marked ``…``;
3. ``lines``: one line per skill, its name and its description on one line, cut to the
   longest length that fits, without locations or markup per skill; when not every skill
   fits so, the first skills (in catalog order) take that form, as many as fit at
   :data:`MIN_DESCRIPTION_CHARS`, and the rest are named only;
4. ``names``: every name, in a comma-separated list;
5. ``count``: the number of skills and the search tool that finds them; when some names fit,
   the first skills are named and the note counts the rest. Offered only when there is a
   search tool: without one ``names`` is the last form, over budget or not.

Each form is chosen only when the richer ones do not fit, and the mixed forms spend what
the pure form would leave over, so no form leaves much of a budget unused when more would
fit. The note always gives the number of skills and how to reach what is not shown.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from skills_core.format.models import SkillMetadata

Tier = Literal["full", "short", "lines", "names", "count"]

MIN_DESCRIPTION_CHARS = 40
"""Shortest cut description; below it, names alone say as much."""


@dataclass(frozen=True, slots=True)
class FittedCatalog:
    """What of a catalog fits a budget.

    Attributes:
        tier: The richest form shown; see the module docstring.
        skills: Every skill that applies (shown or not).
        description_chars: The longest description shown, in the ``short`` and ``lines`` tiers.
        listed: In the ``lines`` tier, how many skills (the first) have a description, the
            rest being named only; in the ``count`` tier, how many are named; ``None``: all
            (``lines``) or none (``count``).
        note: What the model is told about what is not shown (``None`` in the ``full`` tier).
        over_budget: True when even the last form is larger than the budget.
    """

    tier: Tier
    skills: tuple[SkillMetadata, ...]
    description_chars: int | None = None
    listed: int | None = None
    note: str | None = None
    over_budget: bool = False

    @property
    def entries(self) -> list[tuple[str, str]]:
        """``(name, description)`` of the skills shown as entries (``full`` and ``short``)."""
        if self.tier not in ("full", "short"):
            return []
        limit = self.description_chars
        return [
            (meta.name, meta.description if limit is None else shorten(meta.description, limit))
            for meta in self.skills
        ]

    @property
    def lines(self) -> list[tuple[str, str]]:
        """``(name, one-line description)`` of the skills shown on a line each."""
        if self.tier != "lines":
            return []
        limit = self.description_chars or MIN_DESCRIPTION_CHARS
        described = self.skills[: self.listed]
        return [(meta.name, shorten(one_line(meta.description), limit)) for meta in described]

    @property
    def names(self) -> list[str]:
        """The names of the skills shown by name only."""
        if self.tier == "lines" and self.listed is not None:
            return [meta.name for meta in self.skills[self.listed :]]
        if self.tier == "names":
            return [meta.name for meta in self.skills]
        if self.tier == "count":
            return [meta.name for meta in self.skills[: self.listed or 0]]
        return []


Measure = Callable[[FittedCatalog], int]
"""The size, in characters, of what a fitted catalog renders to."""


def fit_catalog(
    skills: Sequence[SkillMetadata],
    budget: int,
    measure: Measure,
    *,
    search_tool: str | None,
    load_tool: str,
) -> FittedCatalog:
    """The richest form of ``skills`` whose rendering fits ``budget`` characters.

    When not even the smallest form fits (names, or the count when there is a search tool),
    that form is returned with ``over_budget`` set, and a :class:`UserWarning` gives its
    size: a budget is never exceeded without a word.

    Args:
        skills: The skills that apply, in the order to show them.
        budget: The most characters the rendering may take.
        measure: Renders a candidate and returns its length.
        search_tool: The tool that finds skills by request, named in the notes; ``None``
            when none is offered (then nothing smaller than names is possible).
        load_tool: The tool that loads a skill, named in the notes.
    """
    if budget < 0:
        raise ValueError(f"budget must be 0 or more characters, not {budget}")
    total = tuple(skills)
    full = FittedCatalog("full", total)
    if measure(full) <= budget:
        return full
    notes = _Notes(len(total), search_tool, load_tool)
    longest = max((len(meta.description) for meta in total), default=0)

    def fits(candidate: FittedCatalog) -> bool:
        return measure(candidate) <= budget

    def short(chars: int) -> FittedCatalog:
        return FittedCatalog("short", total, chars, note=notes.short(chars))

    def lines(chars: int) -> FittedCatalog:
        return FittedCatalog("lines", total, chars, note=notes.lines(chars))

    def mixed(count: int) -> FittedCatalog:
        note = notes.mixed(count, MIN_DESCRIPTION_CHARS)
        return FittedCatalog("lines", total, MIN_DESCRIPTION_CHARS, count, note)

    def named(count: int) -> FittedCatalog:
        return FittedCatalog("count", total, listed=count, note=notes.count(count))

    fitted = (
        _largest(short, MIN_DESCRIPTION_CHARS, longest - 1, fits)
        or _largest(lines, MIN_DESCRIPTION_CHARS, max(longest, MIN_DESCRIPTION_CHARS), fits)
        or _largest(mixed, 1, len(total) - 1, fits)
    )
    if fitted is not None:
        return fitted
    names = FittedCatalog("names", total, note=notes.names())
    if fits(names) or search_tool is None:
        fitted = replace(names, over_budget=not fits(names))
    else:
        fitted = _largest(named, 0, len(total) - 1, fits) or replace(named(0), over_budget=True)
    if fitted.over_budget:
        warnings.warn(
            f"a budget of {budget} characters is under the smallest form of {len(total)} "
            f"skills, {measure(fitted)} characters: that form is used, over the budget",
            stacklevel=3,
        )
    return fitted


def shorten(text: str, limit: int, *, keep_punctuation: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters, at a word when one is near, marked ``…``.

    A listing drops the spaces and the comma, stop, colon or dash before the cut, spending no
    characters on them. ``keep_punctuation`` keeps the text verbatim up to the ``…``, dropping
    only white space (line breaks too): a converter shortening an author's text to fit
    another format (ADK's 1,024-character description) changes no character it keeps.
    """
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return (cut.rstrip() if keep_punctuation else cut.rstrip(" ,.;:-")) + "…"


def one_line(text: str) -> str:
    """``text`` with every run of white space, line breaks included, made one space."""
    return " ".join(text.split())


def _largest(
    make: Callable[[int], FittedCatalog], low: int, high: int, fits: Callable[[FittedCatalog], bool]
) -> FittedCatalog | None:
    """``make(n)`` for the largest ``n`` from ``low`` to ``high`` that fits (a binary search)."""
    best = None
    while low <= high:
        middle = (low + high) // 2
        candidate = make(middle)
        if fits(candidate):
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


@dataclass(frozen=True, slots=True)
class _Notes:
    """What the model is told in each degraded form."""

    total: int
    search_tool: str | None
    load_tool: str

    def short(self, chars: int) -> str:
        return (
            f"{self._count()}, all listed; descriptions are cut to at most {chars} characters "
            f"to fit the context: {self._load()}."
        )

    def lines(self, chars: int) -> str:
        return (
            f"{self._count()}, all listed as `name: description`, descriptions "
            f"cut to at most {chars} characters to fit the context: {self._load()}."
        )

    def mixed(self, described: int, chars: int) -> str:
        return (
            f"{self._count()}, all listed to fit the context: the first {described} as "
            f"`name: description` (cut to at most {chars} characters), the other "
            f"{self.total - described} by name only: {self._find()}."
        )

    def names(self) -> str:
        return f"{self._count()}, listed by name only to fit the context: {self._find()}."

    def count(self, named: int) -> str:
        shown = f"{named} listed by name, the other {self.total - named} not" if named else ""
        return (
            f"{self._count()}; {shown or 'none is listed'}, to fit the context: call "
            f"`{self.search_tool}` with key words of a request to find the ones that fit it."
        )

    def _count(self) -> str:
        return f"{self.total} skill{'' if self.total == 1 else 's'} available"

    def _load(self) -> str:
        return f"`{self.load_tool}` gives the full description and instructions of a skill"

    def _find(self) -> str:
        if self.search_tool is None:
            return f"`{self.load_tool}` gives the description and instructions of a skill"
        return (
            f"call `{self.search_tool}` with key words of a request to see which fit it, with "
            "their descriptions"
        )
