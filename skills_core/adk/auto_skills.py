"""AutoSkillsPlugin: adk-rust's auto-skills for a google-adk Runner.

Every user message that reaches the runner gets the best-fitting skill's instructions put
before it (:mod:`skills_core.context.turns`), before the agent runs and before the message
is stored in the session, so the model sees the skill with the message it answers::

    runner = InMemoryRunner(agent=agent, plugins=[AutoSkillsPlugin(catalog)])
"""

from __future__ import annotations

import logging
from functools import partial

from google.adk.agents.invocation_context import InvocationContext
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from skills_core.catalog.catalog import SkillCatalog
from skills_core.context.search import rank_skills, run_selection
from skills_core.context.selection import SelectionPolicy, Selector
from skills_core.context.turns import DEFAULT_MAX_INJECTED_CHARS, apply_skill_injection
from skills_core.tools.refresh import RefreshGate

logger = logging.getLogger("skillfs.adk")


class AutoSkillsPlugin(BasePlugin):
    """Inject the best skill into every user message of a runner.

    Args:
        catalog: The skills to choose from, from any backend.
        policy: Which skills qualify (default: the top match, at the selector's own lowest
            score; a ranked match must also be strong, unless ``min_score`` is set).
        max_chars: How much of the skill's body to inject.
        selector: How skills are chosen: ranked search (default) or
            :func:`~skills_core.context.selection.select_skills` for adk-rust's scores.
        refresh_every: Refresh the catalog before a message when this many seconds passed
            since the last refresh (``0``: every message; ``None``: never).
        name: The plugin's name in the runner.
    """

    def __init__(
        self,
        catalog: SkillCatalog,
        *,
        policy: SelectionPolicy | None = None,
        max_chars: int = DEFAULT_MAX_INJECTED_CHARS,
        selector: Selector = rank_skills,
        refresh_every: float | None = 5.0,
        name: str = "auto_skills",
    ) -> None:
        super().__init__(name)
        self._catalog = catalog
        self._policy = policy
        self._max_chars = max_chars
        self._selector = selector
        self._refresh = RefreshGate(catalog, refresh_every)

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """A copy of the message with the best skill before it, or ``None`` to keep it."""
        await self._refresh.maybe_refresh()
        message = user_message.model_copy(deep=True)
        # A first selection tokenizes the whole catalog: keep that off the event loop.
        match = await run_selection(
            self._catalog,
            self._selector,
            partial(
                apply_skill_injection,
                message,
                self._catalog,
                self._policy,
                self._max_chars,
                selector=self._selector,
            ),
        )
        if match is None:
            return None
        logger.info("injected skill %s (score %.3f)", match.name, match.score)
        return message
