"""McpSkillsBackend passes the shipped conformance suite against a real SkillServer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from backends import Backend
from backends.testing import BackendConformance
from tests.mcp.harness import ServedFolder


class TestMcpSkillsBackend(BackendConformance):
    @pytest_asyncio.fixture
    async def harness(self, tmp_path: Path) -> AsyncIterator[ServedFolder]:
        harness = ServedFolder(tmp_path)
        yield harness
        await harness.close()

    async def test_locations_name_each_skill_md(self, backend: Backend) -> None:
        """The extension always names a skill's file SKILL.md (gamma's is skill.md on disk),
        and every location starts with the server's label."""
        for ref in await backend.list():
            assert ref.location == f"mcp[test]:skill://{ref.name}/SKILL.md"
