"""Fixtures more than one test package uses: S3 served by moto, and static HTTP, on 127.0.0.1;
a process without AWS credentials.

One server of each for the whole session, shared by ``tests/remote`` (the backends) and the
adapters' tests (``tests/adk``, ``tests/facade``); each test gets a fresh bucket and an empty
request log.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.remote import settings
from tests.remote.servers import S3Server, StaticServer
from tests.remote.settings import CREDENTIAL_VARIABLES, without_aws_credentials


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


@pytest.fixture
def no_aws_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This process, for one test, as on a machine without AWS credentials."""
    for name in os.environ:
        if name.startswith(CREDENTIAL_VARIABLES):
            monkeypatch.delenv(name)
    for name, value in without_aws_credentials(tmp_path).items():
        monkeypatch.setenv(name, value)
