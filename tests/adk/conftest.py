"""Fixtures for the ADK tests: the storage under test is a parameter.

Each store named in ``STORES`` provides a ``<store>_harness`` fixture returning a
:class:`~backends.testing.BackendHarness`; every end-to-end agent test runs once per store.
"""

from __future__ import annotations

import pytest

from backends.testing import BackendHarness
from tests.backends.harnesses import MemoryHarness

STORES = ["memory"]


@pytest.fixture
def memory_harness() -> BackendHarness:
    return MemoryHarness()


@pytest.fixture(params=STORES)
def harness(request: pytest.FixtureRequest) -> BackendHarness:
    harness: BackendHarness = request.getfixturevalue(f"{request.param}_harness")
    return harness
