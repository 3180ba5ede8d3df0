"""Every built-in backend passes the shipped conformance suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.testing import (
    BackendConformance,
    BackendHarness,
    DocumentListerConformance,
    SymlinkConformance,
)
from tests.backends.harnesses import CompositeHarness, LocalHarness, MemoryHarness


class TestLocalBackend(BackendConformance, DocumentListerConformance, SymlinkConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return LocalHarness(tmp_path)


class TestMemoryBackend(BackendConformance):
    @pytest.fixture
    def harness(self) -> BackendHarness:
        return MemoryHarness()


class TestCompositeBackend(BackendConformance, SymlinkConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return CompositeHarness(tmp_path)
