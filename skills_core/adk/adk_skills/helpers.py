"""The design's helper functions, under names of their own.

``with_registry`` is the design's ``with_skills``, ``validate_skill_folder`` its
``validate_skill``; ``create_skill_template`` keeps its name. Each delegates to what skillfs
already has: the registry's tools, ``skillfs validate``'s verdict (strict catalog, every
problem at once) and ``skillfs new``'s skeleton. The first two are renamed so that they never
shadow :func:`skills_core.adk.with_skills` or
:func:`skills_core.validate_skill`, which take other arguments and return other things.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset

from backends.one_skill import open_skill_folder
from skills_core import codes
from skills_core.adk.adk_skills.registry import SkillsConfig, SkillsRegistry
from skills_core.adk.attach import Source
from skills_core.catalog.catalog import SkillCatalog, verdicts_of
from skills_core.format.problems import SkillProblem
from skills_core.skeleton import create_skeleton


async def with_registry(
    agent: LlmAgent,
    sources: Sequence[Source],
    config: SkillsConfig | None = None,
    *,
    include_script_tool: bool = False,
    include_reference_tool: bool = True,
) -> LlmAgent:
    """Discover ``sources`` and give ``agent`` the ``use_skill`` tool; return the agent.

    The design's ``with_skills``. The tools join ``agent.tools`` as one toolset, so closing
    the runner closes the registry.

    Args:
        agent: The agent to extend.
        sources: Paths, URLs or backends, highest precedence first.
        config: Registry options; ``config.scripts`` is required for ``include_script_tool``.
        include_script_tool: Add ``run_script`` too.
        include_reference_tool: Add ``read_reference`` too.

    Raises:
        ValueError: No source was given, or scripts were asked for without a policy.
        SkillfsError: A source could not be opened or listed.
    """
    registry = SkillsRegistry(config)
    tools = [registry.create_use_skill_tool()]
    if include_reference_tool:
        tools.append(registry.create_read_reference_tool())
    if include_script_tool:
        tools.append(registry.create_run_script_tool())
    await registry.discover(sources)
    agent.tools.append(_RegistryToolset(registry, tools))
    return agent


class _RegistryToolset(BaseToolset):
    """A registry's tools as one toolset, which closes the registry when the runner closes."""

    def __init__(self, registry: SkillsRegistry, tools: Sequence[BaseTool]) -> None:
        super().__init__()
        self.registry = registry
        self._tools = list(tools)

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The tools, unchanged: each refreshes the registry itself as a turn begins."""
        return list(self._tools)

    async def close(self) -> None:
        """Close the registry."""
        await self.registry.close()


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """The spec's verdict on one skill folder.

    Attributes:
        valid: True when the skill has no error (warnings are advice).
        skill_path: The folder (or SKILL.md) that was checked.
        errors: Every error, as messages.
        warnings: Every warning, as messages.
        problems: The same problems with their codes and locations, errors first.
    """

    valid: bool
    skill_path: str
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    problems: tuple[SkillProblem, ...]

    def __bool__(self) -> bool:
        return self.valid


async def validate_skill_folder(path: str | os.PathLike[str]) -> ValidationResult:
    """Check one local skill folder (or its SKILL.md) as ``skillfs validate`` does.

    The design's ``validate_skill``.

    A path that holds no SKILL.md (a skills root, a URL) gives an invalid result (code
    ``READ_FAILED``).

    Raises:
        SkillfsError: The folder could not be listed.
    """
    checked = os.fspath(path)
    source = await asyncio.to_thread(open_skill_folder, checked)
    verdicts = []
    if source is not None:
        try:
            catalog = SkillCatalog(source, strict=True)
            (await catalog.refresh()).raise_for_failure()
            verdicts = verdicts_of(catalog)
        finally:
            await source.aclose()
    if not verdicts:
        missing = SkillProblem(None, checked, codes.READ_FAILED, "no SKILL.md in this folder")
        return ValidationResult(False, checked, (missing.message,), (), (missing,))
    errors, warnings = verdicts[0].errors, verdicts[0].warnings
    return ValidationResult(
        valid=not errors,
        skill_path=checked,
        errors=tuple(problem.message for problem in errors),
        warnings=tuple(problem.message for problem in warnings),
        problems=(*errors, *warnings),
    )


async def create_skill_template(
    output_dir: str | os.PathLike[str], name: str, description: str | None = None
) -> Path:
    """Write the skeleton ``skillfs new`` writes, ``output_dir/name``; return its folder.

    Raises:
        SkillValidationError: The name or description breaks the spec; nothing was written.
        FileExistsError: The folder exists already; it is left alone.
    """
    return await asyncio.to_thread(create_skeleton, Path(output_dir), name, description)
