"""A static HTTP site on 127.0.0.1 for the index tests; S3 fixtures come from tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator

import fsspec.registry  # noqa: F401  (backends import it on first use: not on a test's loop)
import pytest

from tests.index.sites import Site
from tests.remote.servers import StaticServer


@pytest.fixture(scope="session")
def web() -> Iterator[StaticServer]:
    server = StaticServer().start()
    yield server
    server.stop()


@pytest.fixture
def site(web: StaticServer) -> Iterator[Site]:
    """A fresh site below its own path on the shared server; the request log starts empty."""
    site = Site(web)
    web.log.reset()
    web.headers_seen.clear()
    yield site
    web.log.reset()
