"""RefreshGate: refresh a catalog before use, at most once every so many seconds.

Every per-turn mechanism (the toolset, the injection plugin, the coordinator's provider, ADK's
registry adapter) refreshes through a gate, and the gates of one catalog share its clock: a
refresh through any of them counts for all, so an agent whose toolset and plugin read the same
catalog lists its storage once per turn, not once per mechanism.
"""

from __future__ import annotations

import logging
import time

from skills_core.catalog.catalog import SkillCatalog

logger = logging.getLogger("skillfs.tools")


class _Clock:
    """When a catalog was last refreshed through a gate (``time.monotonic()``), kept on it."""

    last: float | None = None


class RefreshGate:
    """Rate-limits catalog refreshes requested by adapters (one per turn, per lookup...).

    Args:
        catalog: The catalog to refresh.
        every: Least seconds between refreshes of the catalog, through this gate or any
            other (``0``: every time; ``None``: never). A catalog's first request refreshes.
    """

    def __init__(self, catalog: SkillCatalog, every: float | None) -> None:
        if every is not None and every < 0:
            raise ValueError(f"refresh interval must be >= 0 or None, not {every}")
        self._catalog = catalog
        self._every = every
        self._turn: str | None = None

    async def maybe_refresh(self) -> bool:
        """Refresh unless one ran within the interval (through any gate); True when one ran.

        A refresh that raises never costs a caller its skills (ADK would drop a toolset whose
        tools fail to load, silently to the model): the failure is logged and the catalog
        keeps serving its last good snapshot.
        """
        if self._every is None:
            return False
        now = time.monotonic()
        clock = self._catalog.attached(_Clock, _Clock)
        if clock.last is not None and now - clock.last < self._every:
            return False
        clock.last = now
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
