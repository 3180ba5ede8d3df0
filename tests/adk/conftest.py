"""Fixtures for the ADK tests: the storage under test is a parameter.

Each store named in ``STORES`` provides a ``<store>_harness`` fixture returning a
:class:`~backends.testing.BackendHarness`; every end-to-end agent test runs once per store.
S3 is moto on 127.0.0.1 (the session's server from ``tests/conftest.py``, a fresh bucket per
test).
"""

from __future__ import annotations

from typing import Any

import pytest

from backends.testing import BackendHarness
from tests.backends.harnesses import MemoryHarness
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server

STORES = ["memory", "s3"]


@pytest.fixture
def memory_harness() -> BackendHarness:
    return MemoryHarness()


@pytest.fixture
def s3_harness(s3_server: S3Server, s3_client: Any, bucket: str) -> S3Harness:
    return S3Harness(s3_server, s3_client, bucket)


@pytest.fixture(params=STORES)
def harness(request: pytest.FixtureRequest) -> BackendHarness:
    harness: BackendHarness = request.getfixturevalue(f"{request.param}_harness")
    return harness
