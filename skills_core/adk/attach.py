"""with_skills: give an existing ADK agent skills from paths, URLs or backends."""

from __future__ import annotations

import os
from typing import Any

from google.adk.agents import LlmAgent

from backends.base import Backend
from backends.composite import CompositeBackend
from backends.opener import open_backend
from skills_core.adk.toolset import SkillsToolset
from skills_core.catalog.catalog import SkillCatalog


def with_skills(
    agent: LlmAgent, *sources: str | os.PathLike[str] | Backend, **options: Any
) -> LlmAgent:
    """Add a :class:`SkillsToolset` serving ``sources`` to ``agent`` and return the agent.

    Several sources merge in precedence order (the first wins a name clash), as a
    :class:`~backends.CompositeBackend`. The catalog is refreshed on the agent's first turn
    and then at most every ``refresh_every`` seconds (5 by default).

    Args:
        agent: The agent to extend.
        *sources: Paths, URLs (anything :func:`backends.open_backend` opens) or backends.
        **options: Keyword options for :class:`SkillsToolset` (``scripts=``,
            ``discovery=``...).

    Raises:
        ValueError: No source was given.
        UnsupportedSourceError: A URL names storage skillfs cannot open.
    """
    if not sources:
        raise ValueError("with_skills needs at least one path, URL or backend")
    backends = [
        open_backend(source) if isinstance(source, str | os.PathLike) else source
        for source in sources
    ]
    backend = backends[0] if len(backends) == 1 else CompositeBackend(backends)
    agent.tools.append(SkillsToolset(SkillCatalog(backend), **options))
    return agent
