"""The lock on skills read over MCP from a real SkillServer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from backends import Backend
from backends.testing import skill_md
from skills_core import _codes as codes
from skills_core._trust.lock import SkillLock
from tests.mcp.harness import ServedFolder
from tests.support.locking import LockConformance, codes_by_name, locked_catalog


class TestMcp(LockConformance):
    @pytest_asyncio.fixture
    async def harness(self, tmp_path: Path) -> AsyncIterator[ServedFolder]:
        harness = ServedFolder(tmp_path)
        yield harness
        await harness.close()

    async def test_a_changed_skill_md_is_refused_or_kept_as_locked(  # type: ignore[override]
        self, harness: ServedFolder, backend: Backend, lock: SkillLock
    ) -> None:
        # Judged against the lock from the digest its entry lists: a running catalog holds no
        # SKILL.md of a skill not used yet, so it refuses the change as a new catalog does.
        running = await locked_catalog(backend, lock)
        await harness.write("beta/SKILL.md", skill_md("beta", "Now does something else."))
        await running.refresh()
        assert "beta" not in running
        assert codes_by_name(running) == {"beta": codes.LOCK_MISMATCH}
