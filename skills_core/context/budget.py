"""Catalogs within a budget: every skill accounted for, in as much detail as fits.

A catalog of 134 skills is 78,000 characters of ``<available_skills>``; frameworks that cap it
drop skills without a word. Here a catalog over its budget (in characters; about 4 per token)
degrades visibly, one tier at a time, and says so in a note the model reads:

1. ``full``: every skill with its description (no note: nothing was left out);
2. ``short``: every skill, descriptions cut to the longest length that fits (at least
   :data:`MIN_DESCRIPTION_CHARS`), cut at a word and marked ``…``;
3. ``names``: every skill by name only;
4. ``count``: no skill listed, only how many there are and the search tool that finds them
   (offered only when there is one; without it ``names`` is the last tier, over budget or not).

The note always gives the number of skills and how to reach what is not shown. Filters
(a skill's ``paths`` against the file being worked on, include/exclude tags) apply first,
so the budget is spent on skills that apply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from skills_core.catalog.prompt import format_available_skills
from skills_core.context.selection import TagFilter, skill_tags
from skills_core.format.models import SkillMetadata
from skills_core.tool_table import LOAD_SKILL, SEARCH_SKILLS

if TYPE_CHECKING:
    from skills_core.catalog.catalog import SkillCatalog

Tier = Literal["full", "short", "names", "count"]

MIN_DESCRIPTION_CHARS = 40
"""Shortest cut description; below it, names alone say as much."""


@dataclass(frozen=True, slots=True)
class SkillFilter:
    """Which skills apply here, before any budget.

    Attributes:
        context_path: The file being worked on, relative to the project root: skills with
            ``paths`` apply only when one of them matches it; ``None`` keeps every skill.
        include_tags: When set, only skills with one of these tags (case-insensitive).
        exclude_tags: Skills with any of these tags never apply (wins over include).
    """

    context_path: str | None = None
    include_tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()

    def apply(self, skills: Sequence[SkillMetadata]) -> list[SkillMetadata]:
        """The skills that pass, in their order."""
        tags = TagFilter(self.include_tags, self.exclude_tags)
        path = self.context_path
        return [
            meta
            for meta in skills
            if (path is None or meta.matches_context_path(path))
            and (not tags or tags.allows(skill_tags(meta)))
        ]


@dataclass(frozen=True, slots=True)
class FittedCatalog:
    """What of a catalog fits a budget.

    Attributes:
        tier: How much detail is shown; see the module docstring.
        skills: Every skill that applies (shown or not).
        description_chars: The longest description shown, for the ``short`` tier.
        note: What the model is told about what is not shown (``None`` in the ``full`` tier).
        over_budget: True when even the last tier is larger than the budget.
    """

    tier: Tier
    skills: tuple[SkillMetadata, ...]
    description_chars: int | None = None
    note: str | None = None
    over_budget: bool = False

    def shown(self) -> list[tuple[str, str | None]]:
        """``(name, description)`` of each skill shown; the description is ``None`` for names."""
        if self.tier == "count":
            return []
        if self.tier == "names":
            return [(meta.name, None) for meta in self.skills]
        limit = self.description_chars
        return [
            (meta.name, meta.description if limit is None else shorten(meta.description, limit))
            for meta in self.skills
        ]


Measure = Callable[[FittedCatalog], int]
"""The size, in characters, of what a fitted catalog renders to."""


def fit_catalog(
    skills: Sequence[SkillMetadata],
    budget: int,
    measure: Measure,
    *,
    search_tool: str | None = SEARCH_SKILLS,
    load_tool: str = LOAD_SKILL,
) -> FittedCatalog:
    """The most detailed tier of ``skills`` whose rendering fits ``budget`` characters.

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
    short = _longest_cut(total, budget, measure, notes)
    if short is not None:
        return short
    names = FittedCatalog("names", total, note=notes.names())
    if measure(names) <= budget or search_tool is None:
        return replace(names, over_budget=measure(names) > budget)
    count = FittedCatalog("count", total, note=notes.count())
    return replace(count, over_budget=measure(count) > budget)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word when one is near, marked ``…``."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-") + "…"


def catalog_prompt(
    catalog: SkillCatalog,
    *,
    include_location: bool = True,
    budget: int | None = None,
    skill_filter: SkillFilter | None = None,
    search_tool: str | None = SEARCH_SKILLS,
    load_tool: str = LOAD_SKILL,
) -> str:
    """The ``<available_skills>`` block of a catalog's applicable skills, within ``budget``."""
    skills = catalog.list() if skill_filter is None else skill_filter.apply(catalog.list())
    entries = catalog.snapshot.loaded

    def render(fitted: FittedCatalog) -> str:
        located = (
            (name, text, entries[name].location if include_location else None)
            for name, text in fitted.shown()
        )
        return format_available_skills(located, note=fitted.note)

    if budget is None:
        return render(FittedCatalog("full", tuple(skills)))
    fitted = fit_catalog(
        skills, budget, lambda c: len(render(c)), search_tool=search_tool, load_tool=load_tool
    )
    return render(fitted)


def skills_listing(
    skills: Sequence[SkillMetadata],
    *,
    budget: int | None = None,
    search_tool: str | None = SEARCH_SKILLS,
    load_tool: str = LOAD_SKILL,
) -> dict[str, Any]:
    """What ``list_skills`` returns, within ``budget`` characters of JSON (``json.dumps``).

    ``{"skills": [{"name", "description"}, ...]}``, plus ``total`` and ``note`` when the
    listing had to shrink.
    """
    if budget is None:
        return _listing(FittedCatalog("full", tuple(skills)))
    fitted = fit_catalog(
        skills,
        budget,
        lambda c: len(json.dumps(_listing(c))),  # escaped non-ASCII: the larger count
        search_tool=search_tool,
        load_tool=load_tool,
    )
    return _listing(fitted)


def _listing(fitted: FittedCatalog) -> dict[str, Any]:
    listed = [
        {"name": name} if text is None else {"name": name, "description": text}
        for name, text in fitted.shown()
    ]
    if fitted.note is None:
        return {"skills": listed}
    return {"skills": listed, "total": len(fitted.skills), "note": fitted.note}


def _longest_cut(
    skills: tuple[SkillMetadata, ...], budget: int, measure: Measure, notes: _Notes
) -> FittedCatalog | None:
    """The ``short`` tier with the longest cut that fits (a binary search), or ``None``."""
    longest = max((len(meta.description) for meta in skills), default=0)
    low, high = MIN_DESCRIPTION_CHARS, longest - 1
    best = None
    while low <= high:
        middle = (low + high) // 2
        candidate = FittedCatalog("short", skills, middle, notes.short(middle))
        if measure(candidate) <= budget:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


@dataclass(frozen=True, slots=True)
class _Notes:
    """What the model is told in each degraded tier."""

    total: int
    search_tool: str | None
    load_tool: str

    def short(self, chars: int) -> str:
        return (
            f"{self._count()}, all listed; descriptions are cut to at most {chars} characters "
            f"to fit the context: `{self.load_tool}` gives the full description and "
            "instructions of a skill."
        )

    def names(self) -> str:
        find = (
            f"call `{self.search_tool}` with key words of a request to see which fit it, with "
            "their descriptions"
            if self.search_tool
            else f"`{self.load_tool}` gives the description and instructions of a skill"
        )
        return f"{self._count()}, listed by name only to fit the context: {find}."

    def count(self) -> str:
        return (
            f"{self._count()}; none is listed, to fit the context: call `{self.search_tool}` "
            "with key words of a request to find the ones that fit it."
        )

    def _count(self) -> str:
        return f"{self.total} skill{'' if self.total == 1 else 's'} available"


@dataclass(frozen=True, slots=True)
class ListingPolicy:
    """How a tool set lists its catalog: filters, a budget, and the tools notes point to.

    Attributes:
        budget: The most characters a listing may take; ``None`` for no limit.
        include_tags: When set, only skills with one of these tags are listed.
        exclude_tags: Skills with any of these tags are not listed.
        search_tool: The search tool's name as the model sees it; ``None`` when not offered.
        load_tool: The load tool's name as the model sees it.
    """

    budget: int | None = None
    include_tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()
    search_tool: str | None = SEARCH_SKILLS
    load_tool: str = LOAD_SKILL

    def skill_filter(self, context_path: str | None = None) -> SkillFilter:
        """The filter for a listing made while ``context_path`` is worked on."""
        return SkillFilter(context_path, self.include_tags, self.exclude_tags)

    def listing(
        self, skills: Sequence[SkillMetadata], context_path: str | None = None
    ) -> dict[str, Any]:
        """``list_skills``' result for ``skills``."""
        return skills_listing(
            self.skill_filter(context_path).apply(skills),
            budget=self.budget,
            search_tool=self.search_tool,
            load_tool=self.load_tool,
        )

    def prompt(
        self,
        catalog: SkillCatalog,
        *,
        include_location: bool = False,
        context_path: str | None = None,
    ) -> str:
        """The ``<available_skills>`` block of ``catalog``."""
        return catalog_prompt(
            catalog,
            include_location=include_location,
            budget=self.budget,
            skill_filter=self.skill_filter(context_path),
            search_tool=self.search_tool,
            load_tool=self.load_tool,
        )
