"""Catalogs within a character budget: every skill accounted for, every name kept while they fit.

A catalog over its budget degrades one form (:data:`Tier`) at a time, richest first, with a
note the model reads: ``full``, ``short`` (descriptions cut), ``lines`` (``name:
description``), ``names``, ``count`` (only with a search tool). docs/choosing-skills.md
("Catalogs within a budget") tells the whole rule.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from skills_core._catalog.catalog import format_available_skills
from skills_core._format.models import SkillMetadata
from skills_core._tool_table import DEFAULT_NAMES, LOAD_SKILL, SEARCH_SKILLS, ToolNames
from skills_core.context._selection import SelectionPolicy, TagFilter, skill_tags

if TYPE_CHECKING:
    from skills_core._catalog.catalog import SkillCatalog

Tier = Literal["full", "short", "lines", "names", "count"]

MIN_DESCRIPTION_CHARS = 40
"""Shortest cut description; below it, names alone say as much."""


@dataclass(frozen=True, slots=True)
class FittedCatalog:
    """What of a catalog fits a budget.

    Attributes:
        description_chars: The longest description shown (``short`` and ``lines``).
        listed: How many skills (the first) have a description (``lines``) or are named
            (``count``); ``None``: all (``lines``) or none (``count``).
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
        """``(name, one-line description)`` of the skills shown one per line."""
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


def fit_catalog(
    skills: Sequence[SkillMetadata],
    budget: int | None,
    measure: Measure,
    *,
    search_tool: str | None,
    load_tool: str,
) -> FittedCatalog:
    """The richest form of ``skills`` whose rendering (``measure``) fits ``budget`` characters.

    When not even the smallest form fits, that form is returned with ``over_budget`` set and
    a :class:`UserWarning` giving its size. Without a ``search_tool``, names are the last form.
    """
    if budget is not None and budget < 0:
        raise ValueError(f"budget must be 0 or more characters, not {budget}")
    total = tuple(skills)
    full = FittedCatalog("full", total)
    if budget is None or measure(full) <= budget:
        return full
    longest = max((len(meta.description) for meta in total), default=0)
    count = f"{len(total)} skill{'' if len(total) == 1 else 's'} available"
    load = f"`{load_tool}` gives the full description and instructions of a skill"
    find = (
        f"`{load_tool}` gives the description and instructions of a skill"
        if search_tool is None
        else f"call `{search_tool}` with key words of a request to see which fit it, with "
        "their descriptions"
    )

    def fits(candidate: FittedCatalog) -> bool:
        return measure(candidate) <= budget

    def short(chars: int) -> FittedCatalog:
        note = (
            f"{count}, all listed; descriptions are cut to at most {chars} characters "
            f"to fit the context: {load}."
        )
        return FittedCatalog("short", total, chars, note=note)

    def lines(chars: int) -> FittedCatalog:
        note = (
            f"{count}, all listed as `name: description`, descriptions "
            f"cut to at most {chars} characters to fit the context: {load}."
        )
        return FittedCatalog("lines", total, chars, note=note)

    def mixed(described: int) -> FittedCatalog:
        note = (
            f"{count}, all listed to fit the context: the first {described} as "
            f"`name: description` (cut to at most {MIN_DESCRIPTION_CHARS} characters), the "
            f"other {len(total) - described} by name only: {find}."
        )
        return FittedCatalog("lines", total, MIN_DESCRIPTION_CHARS, described, note)

    def named(shown: int) -> FittedCatalog:
        listed = f"{shown} listed by name, the other {len(total) - shown} not" if shown else ""
        note = (
            f"{count}; {listed or 'none is listed'}, to fit the context: call "
            f"`{search_tool}` with key words of a request to find the ones that fit it."
        )
        return FittedCatalog("count", total, listed=shown, note=note)

    fitted = (
        _largest(short, MIN_DESCRIPTION_CHARS, longest - 1, fits)
        or _largest(lines, MIN_DESCRIPTION_CHARS, max(longest, MIN_DESCRIPTION_CHARS), fits)
        or _largest(mixed, 1, len(total) - 1, fits)
    )
    if fitted is not None:
        return fitted
    note = f"{count}, listed by name only to fit the context: {find}."
    names = FittedCatalog("names", total, note=note)
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

    Punctuation before the cut is dropped, unless ``keep_punctuation`` (white space only).
    """
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return (cut.rstrip() if keep_punctuation else cut.rstrip(" ,.;:-")) + "…"


def one_line(text: str) -> str:
    """``text`` with every run of white space made one space."""
    return " ".join(text.split())


def _largest(
    make: Callable[[int], FittedCatalog], low: int, high: int, fits: Callable[[FittedCatalog], bool]
) -> FittedCatalog | None:
    """``make(n)`` for the largest ``n`` from ``low`` to ``high`` that fits (binary search)."""
    best = None
    while low <= high:
        middle = (low + high) // 2
        candidate = make(middle)
        if fits(candidate):
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


class ShownOrder:
    """Ranks skill names by when they were first shown, so listings only grow at their end.

    Hidden names keep their rank; those of removed skills are forgotten once they outnumber
    the present ones.
    """

    def __init__(self) -> None:
        self._rank: dict[str, int] = {}
        self._next = 0

    def arrange(
        self, skills: Sequence[SkillMetadata], present: Collection[str]
    ) -> list[SkillMetadata]:
        """``skills`` in shown order, new ones last; ``present``: every name in the catalog."""
        rank = self._rank
        for meta in skills:
            if meta.name not in rank:
                rank[meta.name] = self._next
                self._next += 1
        if len(rank) > 2 * len(present):
            self._rank = rank = {name: r for name, r in rank.items() if name in present}
        return sorted(skills, key=lambda meta: rank[meta.name])


def model_visible(skills: Iterable[SkillMetadata]) -> list[SkillMetadata]:
    """The skills a model may see and choose: all but those with ``disable-model-invocation``."""
    return [meta for meta in skills if meta.model_invocable]


def visible_names(catalog: SkillCatalog, order: ShownOrder) -> list[str]:
    """The names of the skills a model may see, in the order it was first shown them."""
    visible = order.arrange(model_visible(catalog.list()), catalog.snapshot.loaded)
    return [meta.name for meta in visible]


@dataclass(frozen=True, slots=True)
class SkillFilter:
    """Which skills apply here, before any budget (never user-only ones: :func:`model_visible`).

    Attributes:
        context_path: The file worked on: skills with ``paths`` apply only when one matches it.
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
            for meta in model_visible(skills)
            if (path is None or meta.matches_context_path(path))
            and (not tags or tags.allows(skill_tags(meta)))
        ]


def catalog_prompt(
    catalog: SkillCatalog,
    *,
    include_location: bool = True,
    budget: int | None = None,
    skill_filter: SkillFilter | None = None,
    search_tool: str | None = SEARCH_SKILLS,
    load_tool: str = LOAD_SKILL,
    order: ShownOrder | None = None,
) -> str:
    """The ``<available_skills>`` block of a catalog's applicable skills, within ``budget``.

    Skills come in name order, or in ``order`` (:class:`ShownOrder`).
    """
    skills = (skill_filter or SkillFilter()).apply(catalog.list())
    entries = catalog.snapshot.loaded
    if order is not None:
        skills = order.arrange(skills, entries)

    def render(fitted: FittedCatalog) -> str:
        located = (
            (name, text, entries[name].location if include_location else None)
            for name, text in fitted.entries
        )
        return format_available_skills(
            located, note=fitted.note, lines=fitted.lines, names=fitted.names
        )

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

    ``{"skills": [{"name", "description"}, ...]}``, or the smaller forms: ``lines``
    (``["name: description", ...]``), ``names`` (``"a, b, c"``), with ``total`` and ``note``.
    """
    fitted = fit_catalog(
        skills,
        budget,
        lambda c: len(json.dumps(_listing(c))),  # escaped non-ASCII: the larger count
        search_tool=search_tool,
        load_tool=load_tool,
    )
    return _listing(fitted)


def _listing(fitted: FittedCatalog) -> dict[str, Any]:
    listing: dict[str, Any] = {}
    if fitted.tier in ("full", "short"):
        listing["skills"] = [{"name": n, "description": d} for n, d in fitted.entries]
    if fitted.lines:
        listing["lines"] = [f"{name}: {text}" for name, text in fitted.lines]
    if fitted.names:
        listing["names"] = ", ".join(fitted.names)
    if fitted.note is not None:
        listing.update(total=len(fitted.skills), note=fitted.note)
    return listing


@dataclass(frozen=True, slots=True)
class ListingPolicy:
    """How a tool set lists its catalog: filters, a budget, and whether search is offered.

    Attributes:
        budget: The most characters a listing may take; ``None`` for no limit.
        search: Whether the reader has ``search_skills`` (notes point to it, a listing over
            budget may name only some skills); ``None``: when there is a ``budget``.
        ranking: How ``search_skills`` ranks, e.g. ``SelectionPolicy(embedder=...)``; its
            ``top_k`` is the call's ``limit``, its tags this listing's.
    """

    budget: int | None = None
    include_tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()
    search: bool | None = None
    ranking: SelectionPolicy | None = None

    @property
    def searches(self) -> bool:
        """Whether ``search_skills`` is offered."""
        return self.budget is not None if self.search is None else self.search

    def search_policy(self, limit: int) -> SelectionPolicy:
        """What ``search_skills`` ranks by: :attr:`ranking`, ``limit`` skills, these tags."""
        include, exclude = self.include_tags, self.exclude_tags
        return replace(
            self.ranking or SelectionPolicy(),
            top_k=limit,
            include_tags=include,
            exclude_tags=exclude,
        )

    def skill_filter(self, context_path: str | None = None) -> SkillFilter:
        """The filter for a listing made while ``context_path`` is worked on."""
        return SkillFilter(context_path, self.include_tags, self.exclude_tags)

    def listing(
        self,
        skills: Sequence[SkillMetadata],
        context_path: str | None = None,
        *,
        names: ToolNames = DEFAULT_NAMES,
    ) -> dict[str, Any]:
        """``list_skills``' result for ``skills``, its notes naming the tools by ``names``."""
        return skills_listing(
            self.skill_filter(context_path).apply(skills),
            budget=self.budget,
            search_tool=names.search_skills if self.searches else None,
            load_tool=names.load_skill,
        )

    def prompt(
        self,
        catalog: SkillCatalog,
        *,
        include_location: bool = False,
        context_path: str | None = None,
        order: ShownOrder | None = None,
        names: ToolNames = DEFAULT_NAMES,
    ) -> str:
        """The ``<available_skills>`` block of ``catalog`` (see :func:`catalog_prompt`)."""
        return catalog_prompt(
            catalog,
            include_location=include_location,
            budget=self.budget,
            skill_filter=self.skill_filter(context_path),
            search_tool=names.search_skills if self.searches else None,
            load_tool=names.load_skill,
            order=order,
        )
