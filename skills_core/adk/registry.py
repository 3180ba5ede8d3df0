"""CatalogSkillRegistry: google-adk's SkillRegistry over any skillfs catalog.

With it, ADK's own ``SkillToolset(registry=CatalogSkillRegistry(catalog))`` loads skills from
S3, GCS, zip bundles or memory, not only local folders, and sees them change.
"""

from __future__ import annotations

import logging
import re

from google.adk.skills import Frontmatter, SkillRegistry
from google.adk.skills import Skill as AdkSkill

from skills_core.adk.convert import load_adk_skill, to_adk_frontmatter
from skills_core.catalog.catalog import SkillCatalog
from skills_core.errors import SkillValidationError
from skills_core.format.models import SkillMetadata
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
        """Skills whose name, description or tags hold the query's words, best first."""
        await self._refresh.maybe_refresh()
        words = [word for word in re.split(r"\W+", query.lower()) if word]
        candidates = [
            (_score(entry.metadata, words), entry.metadata, entry.location)
            for entry in self._catalog.snapshot.loaded.values()
            if entry.metadata is not None
        ]
        found = []
        for score, meta, location in sorted(candidates, key=lambda item: (-item[0], item[1].name)):
            if words and not score:
                continue
            try:
                found.append(to_adk_frontmatter(meta, location=location))
            except SkillValidationError as exc:
                logger.warning("left out of search results for google-adk: %s", exc)
        return found

    def search_tool_description(self) -> str:
        """How the model should search."""
        return (
            "Searches the skill catalog by words in skill names, descriptions and tags; "
            "an empty query lists every skill."
        )


def _score(meta: SkillMetadata, words: list[str]) -> int:
    haystack = " ".join((meta.name, meta.description, *meta.tags)).lower()
    return sum(word in haystack for word in words)
