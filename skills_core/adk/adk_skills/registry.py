"""SkillsRegistry: the adk-skills design's registry, over a live skillfs catalog.

The design scans local folders once; this registry opens any skillfs source (folder, S3, GCS,
GitHub, zip bundle, memory), keeps one :class:`~skills_core.SkillCatalog` over them and
refreshes it incrementally at the start of each agent turn, so the tools it creates always
describe and serve the skills storage holds now.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass

from google.adk.tools.base_tool import BaseTool

from backends.base import Backend
from backends.composite import CompositeBackend
from backends.errors import SkillNotFoundError, StorageError
from backends.memory import MemoryBackend
from skills_core.adk.adk_skills.tools import read_reference_tool, run_script_tool, use_skill_tool
from skills_core.adk.attach import Source, open_sources
from skills_core.catalog.catalog import SkillCatalog
from skills_core.format.models import Skill, SkillMetadata
from skills_core.tools.factory import DEFAULT_MAX_RESOURCE_BYTES, SkillTools
from skills_core.tools.policy import ScriptPolicy
from skills_core.tools.refresh import RefreshGate
from skills_core.trust.policy import TrustPolicy


@dataclass(frozen=True, slots=True)
class SkillsConfig:
    """How a :class:`SkillsRegistry` loads and serves skills.

    Attributes:
        scripts: Lets ``run_script`` run scripts under this policy; ``None`` keeps them off.
        strict_validation: Refuse skills with any spec violation, not only a broken identity.
        refresh_every: Refresh the catalog at the start of an agent turn when this many
            seconds passed since the last refresh (``0``: every turn; ``None``: never).
        max_resource_bytes: Largest file ``read_reference`` returns (the tool limit of
            :class:`~skills_core.tools.SkillTools`, under the same name).
        trust: What the catalog trusts: a lock, signing keys, the user's approvals (as
            ``with_skills(..., trust=)`` and ``SkillCatalog(trust=)`` take it).
    """

    scripts: ScriptPolicy | None = None
    strict_validation: bool = False
    refresh_every: float | None = 5.0
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    trust: TrustPolicy | None = None


class SkillsRegistry:
    """Discover skills, read them, and make the ``use_skill`` family of ADK tools.

    >>> registry = SkillsRegistry()
    >>> await registry.discover(["./skills", "s3://bucket/skills"])  # doctest: +SKIP
    >>> agent = LlmAgent(..., tools=[registry.create_use_skill_tool()])  # doctest: +SKIP

    Args:
        config: Options; the defaults serve skills leniently with scripts off.
    """

    def __init__(self, config: SkillsConfig | None = None) -> None:
        self.config = config or SkillsConfig()
        self._sources: tuple[Backend, ...] = ()
        self._opened: tuple[Backend, ...] = ()  # opened here from paths and URLs: ours to close
        self._tools = self._serve(MemoryBackend())  # empty until discover()
        self._gate = RefreshGate(self._tools.catalog, self.config.refresh_every)

    def __repr__(self) -> str:
        return f"SkillsRegistry(skills={len(self)})"

    def __len__(self) -> int:
        return len(self.catalog)

    def __contains__(self, name: object) -> bool:
        return name in self.catalog

    @property
    def catalog(self) -> SkillCatalog:
        """The catalog behind the registry; its ``warnings`` name shadowed skills."""
        return self._tools.catalog

    @property
    def tools(self) -> SkillTools:
        """The framework-neutral skill tools the ADK tools delegate to."""
        return self._tools

    async def discover(self, sources: Sequence[Source]) -> int:
        """Load the skills of ``sources`` after those discovered before; return the count.

        Sources compose in precedence order: on a name clash the earlier source wins and the
        hidden skill is reported in ``catalog.warnings`` (code ``SHADOWED``). A leading ``~``
        in a path is expanded.

        Raises:
            ValueError: No source was given.
            UnsupportedSourceError: A URL names storage skillfs cannot open.
            SkillfsError: A source could not be listed; the registry is left as it was.
        """
        if isinstance(sources, str | os.PathLike) or not sources:
            raise ValueError("discover needs a list of paths, URLs or backends")
        backends, opened = open_sources(sources)
        members = (*self._sources, *backends)
        tools = self._serve(members[0] if len(members) == 1 else CompositeBackend(members))
        report = await tools.catalog.refresh()
        unavailable = tools.catalog.snapshot.unavailable  # sources listed without
        if not report.ok or unavailable:
            await _close(opened)
            report.raise_for_failure()
            raise StorageError(unavailable[0].message, location=unavailable[0].location)
        old, self._tools, self._sources = self._tools, tools, members
        self._opened += tuple(opened)
        self._gate = RefreshGate(tools.catalog, self.config.refresh_every)
        await old.close()
        return len(tools.catalog)

    def list_metadata(self) -> list[SkillMetadata]:
        """The metadata of every loaded skill, sorted by name."""
        return list(self.catalog.list())

    def get_metadata(self, name: str) -> SkillMetadata | None:
        """One skill's metadata, or ``None`` when no loaded skill has that name."""
        try:
            return self.catalog.metadata(name)
        except SkillNotFoundError:
            return None

    async def load_skill(self, name: str) -> Skill:
        """One skill with its instructions (``body``) and current file list.

        Raises:
            SkillNotFoundError: No loaded skill has that name.
        """
        return await self.catalog.get(name)

    def to_available_skills_xml(self, *, include_location: bool = False) -> str:
        """The ``<available_skills>`` block: each skill's name and description, escaped.

        Args:
            include_location: Add each SKILL.md's location, for agents that read files.
        """
        return self.catalog.to_prompt(include_location=include_location)

    async def refresh_for_turn(self, turn: str) -> None:
        """Refresh the catalog at the start of an agent turn; see ``SkillsConfig``."""
        await self._gate.refresh_for_turn(turn)

    def create_use_skill_tool(self, *, include_skills_listing: bool = True) -> BaseTool:
        """The ``use_skill(name)`` tool; its description lists the current skills.

        Args:
            include_skills_listing: Put the ``<available_skills>`` block in the description
                (turn off when the block is in the instruction already).
        """
        return use_skill_tool(self, include_skills_listing=include_skills_listing)

    def create_run_script_tool(self) -> BaseTool:
        """The ``run_script(skill, script, args)`` tool.

        Raises:
            ValueError: ``config.scripts`` is ``None``: scripts are off.
        """
        if self.config.scripts is None:
            raise ValueError(
                "run_script needs a script policy: SkillsRegistry(SkillsConfig(scripts="
                "ScriptPolicy(...)))"
            )
        return run_script_tool(self)

    def create_read_reference_tool(self) -> BaseTool:
        """The ``read_reference(skill, reference)`` tool."""
        return read_reference_tool(self)

    async def close(self) -> None:
        """Delete local copies made to run remote scripts; close the sources opened here.

        Backends passed to :meth:`discover` stay open: whoever opened them closes them.
        """
        try:
            await self._tools.close()
        finally:
            await _close(self._opened)

    def _serve(self, backend: Backend) -> SkillTools:
        config = self.config
        catalog = SkillCatalog(backend, strict=config.strict_validation, trust=config.trust)
        return SkillTools(
            catalog,
            scripts=config.scripts,
            max_resource_bytes=config.max_resource_bytes,
        )


async def _close(backends: Sequence[Backend]) -> None:
    await asyncio.gather(*(backend.aclose() for backend in backends))
