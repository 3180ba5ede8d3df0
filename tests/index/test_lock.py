"""The lock on published indexes: an HTTP site on loopback, a bucket."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.testing import BackendHarness
from tests.index.harnesses import BucketHarness, SiteHarness
from tests.index.sites import Site
from tests.remote.servers import S3Server
from tests.support.locking import LockConformance


class TestHttpIndex(LockConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path, site: Site) -> BackendHarness:
        return SiteHarness(tmp_path / "source", site)


class TestPublishedBucket(LockConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path, s3_server: S3Server, bucket: str) -> BackendHarness:
        return BucketHarness(tmp_path / "source", s3_server, bucket)
