"""RefreshGate: refresh a catalog before use, at most once every so many seconds."""

from __future__ import annotations

import logging
import time

from skills_core.catalog.catalog import SkillCatalog

logger = logging.getLogger("skillfs.tools")


class RefreshGate:
    """Rate-limits catalog refreshes requested by adapters (one per turn, per lookup...).

    Args:
        catalog: The catalog to refresh.
        every: Least seconds between refreshes (``0``: every time; ``None``: never). The
            first request always refreshes.
    """

    def __init__(self, catalog: SkillCatalog, every: float | None) -> None:
        if every is not None and every < 0:
            raise ValueError(f"refresh interval must be >= 0 or None, not {every}")
        self._catalog = catalog
        self._every = every
        self._last: float | None = None
        self._turn: str | None = None

    async def maybe_refresh(self) -> bool:
        """Refresh unless one ran within the interval; True when a refresh ran.

        A refresh that raises never costs a caller its skills (ADK would drop a toolset whose
        tools fail to load, silently to the model): the failure is logged and the catalog
        keeps serving its last good snapshot.
        """
        if self._every is None:
            return False
        now = time.monotonic()
        if self._last is not None and now - self._last < self._every:
            return False
        self._last = now
        try:
            await self._catalog.refresh()
        except Exception:
            location = self._catalog.backend.location
            logger.exception(
                "refreshing the skills of %s failed; serving the last good catalog", location
            )
        return True

    async def refresh_for_turn(self, turn: str) -> bool:
        """Refresh when ``turn`` (an ADK invocation id) is new, within the interval's limit.

        Every model request of a turn asks; only the turn's first may refresh, so the skills
        a model sees stay the same for the whole turn.
        """
        if turn == self._turn:
            return False
        self._turn = turn
        return await self.maybe_refresh()
