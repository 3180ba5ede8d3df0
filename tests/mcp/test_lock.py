"""The lock on skills read over MCP from a real SkillServer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from tests.mcp.harness import ServedFolder
from tests.support.locking import LockConformance


class TestMcp(LockConformance):
    @pytest_asyncio.fixture
    async def harness(self, tmp_path: Path) -> AsyncIterator[ServedFolder]:
        harness = ServedFolder(tmp_path)
        yield harness
        await harness.close()
