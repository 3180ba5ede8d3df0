"""The ADK-native adapters: google-adk's own ``SkillToolset`` fed by any skillfs catalog.

Where ADK's model is stricter than skillfs (a description over 1,024 characters...), the
smallest fix that keeps the meaning is made and logged. ADK addresses ``references/``,
``assets/``, ``scripts/``.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from typing import Any

from google.adk.skills import Frontmatter, Resources, Script, SkillRegistry
from google.adk.skills import Skill as AdkSkill
from pydantic import ValidationError

from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core._errors import SkillValidationError
from skills_core._format.models import Skill, SkillMetadata, SkillProblem
from skills_core._format.validation import DESCRIPTION_MAX_LENGTH, ValidationReport
from skills_core.adk._handlers import INJECT_STATE, inject_state_flag
from skills_core.adk._toolset import RefreshGate
from skills_core.context._budget import model_visible, shorten
from skills_core.context._search import search_index
from skills_core.context._selection import SelectionPolicy
from skills_core.tools._content import as_text, skill_uri

logger = logging.getLogger("skillfs.adk")

COMPATIBILITY_MAX_LENGTH = 500
_PARALLEL_READS = 8
_SECTIONS = ("references", "assets", "scripts")


def to_adk_skill(skill: Skill, resources: Mapping[str, bytes] | None = None) -> AdkSkill:
    """ADK's ``Skill`` for ``skill``, with ``resources`` (``{relative path: bytes}``) attached.

    Raises:
        SkillValidationError: ADK cannot represent the skill even after the fixes.
    """
    frontmatter = to_adk_frontmatter(skill.metadata, location=skill.location)
    converted = AdkSkill(
        frontmatter=frontmatter,
        instructions=skill.body,
        resources=_resources(resources or {}, skill.location),
    )
    converted._uri = skill_uri(skill.location)  # ADK's own loaders set it the same way
    return converted


def to_adk_frontmatter(metadata: SkillMetadata, *, location: str) -> Frontmatter:
    """ADK's ``Frontmatter`` for ``metadata``, fixed where ADK is stricter than skillfs.

    Raises:
        SkillValidationError: ADK refuses it even after the fixes.
    """
    data = metadata.to_frontmatter()
    fixes: list[str] = []
    for key, limit in (
        ("description", DESCRIPTION_MAX_LENGTH),
        ("compatibility", COMPATIBILITY_MAX_LENGTH),
    ):
        value = data.get(key)
        if isinstance(value, str) and len(value) > limit:
            data[key] = shorten(value, limit, keep_punctuation=True)
            fixes.append(f"{key} shortened from {len(value)} to {len(data[key])} characters")
    data["metadata"] = _fix_metadata(dict(data.get("metadata", {})), fixes)
    for fix in fixes:
        logger.warning("%s: %s for google-adk", location, fix)
    try:
        return Frontmatter.model_validate(data)
    except ValidationError as exc:
        issues = tuple(
            SkillProblem.found(
                codes.INVALID_VALUE,
                f"google-adk: {error['msg']}",
                ".".join(map(str, error["loc"])) or None,
            )
            for error in exc.errors()
        )
        raise SkillValidationError(ValidationReport(errors=issues), location=location) from exc


async def load_adk_skill(
    catalog: SkillCatalog, name: str, *, max_file_bytes: int | None = None
) -> AdkSkill:
    """Load one skill with its resources (each within ``max_file_bytes``), as ADK's ``Skill``.

    Raises:
        SkillNotFoundError: No loaded skill has that name.
        SkillValidationError: ADK cannot represent the skill.
    """
    skill = await catalog.get(name)
    limit = max_file_bytes or catalog.limits.max_read_bytes
    wanted = []
    for entry in skill.files:
        if entry.path.split("/", 1)[0] not in _SECTIONS:
            continue
        if entry.size > limit:
            logger.warning("%s: %s left out: %d bytes", skill.location, entry.path, entry.size)
            continue
        wanted.append(entry.path)
    gate = asyncio.Semaphore(_PARALLEL_READS)

    async def read(path: str) -> bytes:
        async with gate:
            return await catalog.read_resource(name, path, max_bytes=limit)

    contents = await asyncio.gather(*(read(path) for path in wanted))
    return to_adk_skill(skill, dict(zip(wanted, contents, strict=True)))


async def load_adk_skills(catalog: SkillCatalog) -> list[AdkSkill]:
    """Every skill a model may choose as ADK's ``Skill``, for ``SkillToolset(skills=...)``.

    A skill ADK cannot represent is left out with a warning; the others still load.
    """
    loaded = []
    for metadata in model_visible(catalog.list()):
        try:
            loaded.append(await load_adk_skill(catalog, metadata.name))
        except SkillValidationError as exc:
            logger.warning("skipped for google-adk: %s", exc)
    return loaded


def _fix_metadata(metadata: dict[str, Any], fixes: list[str]) -> dict[str, Any]:
    inject = metadata.get(INJECT_STATE)
    if isinstance(inject, str):
        flag = inject_state_flag(inject)
        if flag is None:
            del metadata[INJECT_STATE]
            fixes.append(f"metadata.{INJECT_STATE} {inject!r} is not a boolean; dropped")
        else:
            metadata[INJECT_STATE] = flag
            fixes.append(f"metadata.{INJECT_STATE} {inject!r} read as a boolean")
    tools = metadata.get("adk_additional_tools")
    if isinstance(tools, str):
        metadata["adk_additional_tools"] = [name for name in re.split(r"[\s,]+", tools) if name]
        fixes.append("metadata.adk_additional_tools read as a list of tool names")
    return metadata


def _resources(files: Mapping[str, bytes], location: str) -> Resources:
    sections: dict[str, dict[str, str | bytes]] = {"references": {}, "assets": {}}
    scripts: dict[str, Script] = {}
    for path, data in sorted(files.items()):
        section, _, rest = path.partition("/")
        text = as_text(data)
        if section == "scripts":
            if text is None:
                logger.warning("%s: %s left out: google-adk scripts must be text", location, path)
            else:
                scripts[rest] = Script(src=text)
        elif section in sections and rest:
            sections[section][rest] = data if text is None else text
    return Resources(references=sections["references"], assets=sections["assets"], scripts=scripts)


class CatalogSkillRegistry(SkillRegistry):
    """Serve a catalog's skills through ADK's registry, refreshed as a toolset's would be."""

    def __init__(self, catalog: SkillCatalog, *, refresh_every: float | None = 5.0) -> None:
        self.catalog = catalog
        self._refresh = RefreshGate(catalog, refresh_every)

    async def get_skill(self, *, name: str) -> AdkSkill:
        """One skill with its references, assets and scripts, as ADK's ``Skill``."""
        await self._refresh.maybe_refresh()
        return await load_adk_skill(self.catalog, name)

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """The skills that fit ``query``, best first (ranked search); all for an empty query."""
        await self._refresh.maybe_refresh()
        snapshot = self.catalog.snapshot
        if query.strip():
            policy = SelectionPolicy(top_k=len(snapshot.skills))
            matches = await search_index(self.catalog).search_async(query, policy)
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
