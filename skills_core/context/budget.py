"""Catalogs within a budget: every skill accounted for, every name kept while names fit.

A catalog of 134 skills is 72,000 characters of ``<available_skills>``; frameworks that cap it
drop skills without a word. Here it degrades visibly instead, form by form, and says so in a
note (see :mod:`skills_core.context.fitting` for the forms): the same rules for the
``<available_skills>`` block (:func:`catalog_prompt`), ``list_skills``' JSON
(:func:`skills_listing`), and the :class:`ListingPolicy` tool sets hold. Filters (a skill's
``paths`` against the file being worked on, include/exclude tags) apply first, so the budget
is spent on skills that apply.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skills_core.catalog.catalog import format_available_skills
from skills_core.context.fitting import FittedCatalog, fit_catalog
from skills_core.context.selection import TagFilter, skill_tags
from skills_core.context.shown_order import ShownOrder
from skills_core.format.models import SkillMetadata
from skills_core.tool_table import DEFAULT_NAMES, LOAD_SKILL, SEARCH_SKILLS, ToolNames

if TYPE_CHECKING:
    from skills_core.catalog.catalog import SkillCatalog


def model_visible(skills: Iterable[SkillMetadata]) -> list[SkillMetadata]:
    """The skills a model may see and choose: all but those with ``disable-model-invocation``."""
    return [meta for meta in skills if meta.model_invocable]


def visible_names(catalog: SkillCatalog, order: ShownOrder) -> list[str]:
    """The names of the skills a model may see, in the order it was first shown them."""
    visible = order.arrange(model_visible(catalog.list()), catalog.snapshot.loaded)
    return [meta.name for meta in visible]


@dataclass(frozen=True, slots=True)
class SkillFilter:
    """Which skills apply here, before any budget.

    Skills only a user may invoke (``disable-model-invocation: true``) never apply: see
    :func:`model_visible`.

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

    Skills come in name order, or in ``order`` (the order they were first shown, new ones
    last) so that a block built again after skills were added starts with the earlier one.
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

    ``{"skills": [{"name", "description"}, ...]}``; when that does not fit, the smaller forms
    of :mod:`skills_core.context.fitting`: ``lines`` (``["name: description", ...]``) and
    ``names`` (``"a, b, c"``) in place of ``skills``, with ``total`` and ``note``.
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

    The tools its notes point to are named by the adapter's :class:`~skills_core.tool_table.
    ToolNames`, given to :meth:`listing` and :meth:`prompt`: a tool's name is given in one
    place.

    Attributes:
        budget: The most characters a listing may take; ``None`` for no limit.
        include_tags: When set, only skills with one of these tags are listed.
        exclude_tags: Skills with any of these tags are not listed.
        search: Whether the reader has ``search_skills``, so that notes point to it and a
            listing over budget may name only some skills; ``None`` (the default): when there
            is a ``budget`` (the MCP server offers it whatever the budget when not told).
    """

    budget: int | None = None
    include_tags: Sequence[str] = ()
    exclude_tags: Sequence[str] = ()
    search: bool | None = None

    @property
    def searches(self) -> bool:
        """Whether ``search_skills`` is offered."""
        return self.budget is not None if self.search is None else self.search

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
