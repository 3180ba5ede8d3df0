"""What reaches a model's context: which skills, in how much detail, and when.

Framework-neutral (no google.adk import): how text is cut into words (``words``), values
derived from each skill (``derived``), adk-rust's scorer (``selection``), ranked search
(``search``), catalogs within a character budget (``budget``), a skill chosen for a turn by
injection or the context coordinator (``turns``), and instruction files as skills
(``instructions``).

>>> from skills_core.context import SelectionPolicy, rank_skills, select_skills

The public names are imported on first use, so a module of this package loads only what it
needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends.lazy import lazy_exports

if TYPE_CHECKING:
    from skills_core.context.budget import ListingPolicy, SkillFilter, catalog_prompt
    from skills_core.context.instructions import instruction_documents, instruction_skills
    from skills_core.context.search import rank_skills, search_index
    from skills_core.context.selection import SelectionPolicy, select_skills
    from skills_core.context.turns import (
        ByName,
        ByQuery,
        ByTag,
        ContextCoordinator,
        CoordinatorConfig,
        ToolMap,
        ValidationMode,
        escape_block_delimiters,
    )

_TURNS = (
    "ByName",
    "ByQuery",
    "ByTag",
    "ContextCoordinator",
    "CoordinatorConfig",
    "ToolMap",
    "ValidationMode",
    "escape_block_delimiters",
)
_EXPORTS = {
    "ListingPolicy": "skills_core.context.budget",
    "SelectionPolicy": "skills_core.context.selection",
    "SkillFilter": "skills_core.context.budget",
    "catalog_prompt": "skills_core.context.budget",
    "instruction_documents": "skills_core.context.instructions",
    "instruction_skills": "skills_core.context.instructions",
    "rank_skills": "skills_core.context.search",
    "search_index": "skills_core.context.search",
    "select_skills": "skills_core.context.selection",
    **dict.fromkeys(_TURNS, "skills_core.context.turns"),
}

__all__ = [
    "ByName",
    "ByQuery",
    "ByTag",
    "ContextCoordinator",
    "CoordinatorConfig",
    "ListingPolicy",
    "SelectionPolicy",
    "SkillFilter",
    "ToolMap",
    "ValidationMode",
    "catalog_prompt",
    "escape_block_delimiters",
    "instruction_documents",
    "instruction_skills",
    "rank_skills",
    "search_index",
    "select_skills",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
