"""ADK adapters: skills from any skillfs backend for google-adk agents.

This package is the only part of skillfs that imports google.adk; ``import skills_core`` and
the CLI never do. The one way in is :class:`SkillsToolset` (or :func:`with_skills`, which adds
one to an agent); the plugins, the coordinator's provider and the adapters for ADK's own
``SkillToolset`` are modes of it (docs/adk.md, "Which entry point"). The names an agent with
skills needs all come from here: the catalog and its opener, and the script policy, are
re-exported from their own packages.

>>> from skills_core.adk import ScriptPolicy, SkillCatalog, SkillsToolset, open_backend
>>> catalog = SkillCatalog(open_backend("./skills"))  # doctest: +SKIP
>>> tools = [SkillsToolset(catalog, scripts=ScriptPolicy(timeout=30))]  # doctest: +SKIP
"""

from backends._errors import MissingDependencyError, install_command

try:
    import google.adk  # noqa: F401 - fail here, with the install hint, not deep inside
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise MissingDependencyError(
        f"skills_core.adk needs google-adk: {install_command('adk')}"
    ) from exc

from backends._opener import open_backend
from skills_core._catalog.catalog import SkillCatalog
from skills_core._tool_table import ToolNames
from skills_core.adk._executor import CodeExecutorRunner
from skills_core.adk._modes import (
    ACTIVE_SKILL_KEY,
    AutoSkillsPlugin,
    SkillContextProvider,
    SkillToolGuard,
    activate_skill,
    agent_tool_registry,
)
from skills_core.adk._native import CatalogSkillRegistry, load_adk_skills, to_adk_skill
from skills_core.adk._toolset import (
    Listing,
    Loading,
    PromptContext,
    Prompts,
    SkillsToolset,
    with_skills,
)
from skills_core.tools._policy import ScriptPolicy

__all__ = [
    "ACTIVE_SKILL_KEY",
    "AutoSkillsPlugin",
    "CatalogSkillRegistry",
    "CodeExecutorRunner",
    "Listing",
    "Loading",
    "PromptContext",
    "Prompts",
    "ScriptPolicy",
    "SkillCatalog",
    "SkillContextProvider",
    "SkillToolGuard",
    "SkillsToolset",
    "ToolNames",
    "activate_skill",
    "agent_tool_registry",
    "load_adk_skills",
    "open_backend",
    "to_adk_skill",
    "with_skills",
]
