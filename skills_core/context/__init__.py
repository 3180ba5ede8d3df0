"""What reaches a model's context: which skills, in how much detail, and when.

Framework-neutral (no google.adk import): how text is cut into words (``words``), values
derived from each skill (``derived``), adk-rust's scorer (``selection``), ranked search
(``search``) and its semantic half (``embed``), catalogs within a character budget
(``budget``), a skill chosen for a turn by injection or the context coordinator (``turns``),
and instruction files as skills (``instructions``).

>>> from skills_core.context import SelectionPolicy, rank_skills, select_skills

The public names are imported on first use, so a module of this package loads only what it
needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backends._lazy import lazy_exports

if TYPE_CHECKING:
    from skills_core._format.matching import validate_paths
    from skills_core.context._budget import ListingPolicy, SkillFilter, catalog_prompt
    from skills_core.context._embed import Embedder, load_embedder
    from skills_core.context._instructions import instruction_documents, instruction_skills
    from skills_core.context._search import rank_skills, search_index
    from skills_core.context._selection import SelectionPolicy, select_skills
    from skills_core.context._turns import (
        ByName,
        ByQuery,
        ByTag,
        ContextCoordinator,
        CoordinatorConfig,
        ToolMap,
        ValidationMode,
    )

_TURNS = (
    "ByName",
    "ByQuery",
    "ByTag",
    "ContextCoordinator",
    "CoordinatorConfig",
    "ToolMap",
    "ValidationMode",
)
_EXPORTS = {
    "Embedder": "skills_core.context._embed",
    "ListingPolicy": "skills_core.context._budget",
    "SelectionPolicy": "skills_core.context._selection",
    "SkillFilter": "skills_core.context._budget",
    "catalog_prompt": "skills_core.context._budget",
    "instruction_documents": "skills_core.context._instructions",
    "instruction_skills": "skills_core.context._instructions",
    "load_embedder": "skills_core.context._embed",
    "rank_skills": "skills_core.context._search",
    "search_index": "skills_core.context._search",
    "select_skills": "skills_core.context._selection",
    "validate_paths": "skills_core._format.matching",
    **dict.fromkeys(_TURNS, "skills_core.context._turns"),
}

__all__ = [
    "ByName",
    "ByQuery",
    "ByTag",
    "ContextCoordinator",
    "CoordinatorConfig",
    "Embedder",
    "ListingPolicy",
    "SelectionPolicy",
    "SkillFilter",
    "ToolMap",
    "ValidationMode",
    "catalog_prompt",
    "instruction_documents",
    "instruction_skills",
    "load_embedder",
    "rank_skills",
    "search_index",
    "select_skills",
    "validate_paths",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
