"""with_skills: give an existing ADK agent skills from paths, URLs or backends."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from google.adk.agents import LlmAgent

from backends.base import Backend
from backends.composite import CompositeBackend
from backends.opener import open_backend
from skills_core.adk.toolset import SkillsToolset
from skills_core.catalog.catalog import SkillCatalog
from skills_core.trust.policy import TrustPolicy

Source = str | os.PathLike[str] | Backend
"""A folder path (a leading ``~`` is expanded), a URL :func:`backends.open_backend` opens, or
a backend."""


def open_sources(sources: Sequence[Source]) -> tuple[list[Backend], list[Backend]]:
    """Each source as a backend, and the backends opened here (from paths and URLs).

    The second list is the caller's to close; backends given as such stay their opener's.

    Raises:
        UnsupportedSourceError: A URL names storage skillfs cannot open.
    """
    backends: list[Backend] = []
    opened: list[Backend] = []
    for source in sources:
        if isinstance(source, str | os.PathLike):
            opened.append(open_backend(os.path.expanduser(source)))
            backends.append(opened[-1])
        else:
            backends.append(source)
    return backends, opened


def with_skills(
    agent: LlmAgent,
    *sources: Source,
    trust: TrustPolicy | None = None,
    **options: Any,
) -> LlmAgent:
    """Add a :class:`SkillsToolset` serving ``sources`` to ``agent`` and return the agent.

    Several sources merge in precedence order (the first wins a name clash), as a
    :class:`~backends.CompositeBackend`. The catalog is refreshed on the agent's first turn
    and then at most every ``refresh_every`` seconds (5 by default). The backends opened here
    from paths and URLs are closed when the toolset is (``runner.close()`` closes it); backends
    passed in stay open, as their opener's to close.

    Args:
        agent: The agent to extend.
        *sources: Paths, URLs (anything :func:`backends.open_backend` opens) or backends.
        trust: What the catalog trusts: a lock, signing keys, the user's approvals (see
            :class:`~skills_core.trust.policy.TrustPolicy`).
        **options: Keyword options for :class:`SkillsToolset` (``scripts=``,
            ``listing=``...).

    Raises:
        ValueError: No source was given.
        UnsupportedSourceError: A URL names storage skillfs cannot open.
    """
    if not sources:
        raise ValueError("with_skills needs at least one path, URL or backend")
    backends, opened = open_sources(sources)
    backend = backends[0] if len(backends) == 1 else CompositeBackend(backends)
    agent.tools.append(_OwningToolset(SkillCatalog(backend, trust=trust), opened, **options))
    return agent


class _OwningToolset(SkillsToolset):
    """A :class:`SkillsToolset` that also closes the backends :func:`with_skills` opened."""

    def __init__(self, catalog: SkillCatalog, opened: list[Backend], **options: Any) -> None:
        super().__init__(catalog, **options)
        self._opened = opened

    async def close(self) -> None:
        """Delete script copies, then close the backends opened for this toolset."""
        try:
            await super().close()
        finally:
            await asyncio.gather(*(backend.aclose() for backend in self._opened))
