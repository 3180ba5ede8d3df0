"""CatalogSkillRegistry: google-adk's SkillRegistry over any skillfs catalog.

With it, ADK's own ``SkillToolset(registry=CatalogSkillRegistry(catalog))`` loads skills from
S3, GCS, zip bundles or memory, not only local folders, and sees them change.
"""

from __future__ import annotations

import logging

from google.adk.skills import Frontmatter, SkillRegistry
from google.adk.skills import Skill as AdkSkill

from skills_core.adk.convert import load_adk_skill, to_adk_frontmatter
from skills_core.catalog.catalog import SkillCatalog
from skills_core.context.search import search_index
from skills_core.context.selection import SelectionPolicy
from skills_core.errors import SkillValidationError
from skills_core.tools.refresh import RefreshGate

logger = logging.getLogger("skillfs.adk")


class CatalogSkillRegistry(SkillRegistry):
    """Serve a catalog's skills through ADK's registry interface.

    Args:
        catalog: The skills, from any backend.
        refresh_every: Refresh the catalog before a lookup when this many seconds passed
            since the last refresh (``0``: every lookup; ``None``: never).
    """

    def __init__(self, catalog: SkillCatalog, *, refresh_every: float | None = 5.0) -> None:
        self._catalog = catalog
        self._refresh = RefreshGate(catalog, refresh_every)

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog served."""
        return self._catalog

    async def get_skill(self, *, name: str) -> AdkSkill:
        """One skill with its references, assets and scripts, as ADK's ``Skill``.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
            SkillValidationError: ADK cannot represent the skill.
        """
        await self._refresh.maybe_refresh()
        return await load_adk_skill(self._catalog, name)

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """The skills that fit ``query``, best first (ranked search); all for an empty query."""
        await self._refresh.maybe_refresh()
        snapshot = self._catalog.snapshot
        if query.strip():
            policy = SelectionPolicy(top_k=len(snapshot.skills))
            matches = await search_index(self._catalog).search_async(query, policy)
            found = [(match.metadata, match.location) for match in matches]
        else:
            found = [
                (entry.metadata, entry.location)
                for entry in snapshot.loaded.values()
                if entry.metadata is not None and entry.metadata.model_invocable
            ]
        results = []
        for meta, location in found:
            try:
                results.append(to_adk_frontmatter(meta, location=location))
            except SkillValidationError as exc:
                logger.warning("left out of search results for google-adk: %s", exc)
        return results

    def search_tool_description(self) -> str:
        """How the model should search."""
        return (
            "Finds the skills that share words with a request, best fit first: give its key "
            "words and read the descriptions, the later ones may fit only loosely. An empty "
            "result means no skill shares a word with it; an empty query lists every skill."
        )
