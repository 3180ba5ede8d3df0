"""Fixtures more than one test package uses: S3 served by moto, and static HTTP, on 127.0.0.1.

One server of each for the whole session, shared by ``tests/remote`` (the backends) and the
adapters' tests (``tests/adk``, ``tests/facade``); each test gets a fresh bucket and an empty
request log.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.remote import settings
from tests.remote.servers import S3Server, StaticServer


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    server = S3Server().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def static_server() -> Iterator[StaticServer]:
    server = StaticServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3_client(s3_server: S3Server) -> Any:
    return settings.s3_client(s3_server)


@pytest.fixture
def bucket(s3_server: S3Server, s3_client: Any) -> Iterator[str]:
    """A fresh, empty bucket; the request log starts empty and has no faults."""
    name = f"skills-{uuid.uuid4().hex[:12]}"
    s3_client.create_bucket(Bucket=name)
    s3_server.log.reset()
    yield name
    s3_server.log.reset()
