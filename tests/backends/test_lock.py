"""The lock on a local folder and in memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.testing import BackendHarness
from tests.backends.harnesses import LocalHarness, MemoryHarness
from tests.support.locking import LockConformance


class TestLocal(LockConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return LocalHarness(tmp_path)


class TestMemory(LockConformance):
    @pytest.fixture
    def harness(self) -> BackendHarness:
        return MemoryHarness()
