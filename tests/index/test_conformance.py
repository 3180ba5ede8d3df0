"""The shipped conformance suite over published indexes: a static site, a bucket."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends.testing import BackendConformance, BackendHarness
from tests.index.harnesses import BucketHarness, SiteHarness
from tests.index.sites import Site
from tests.remote.servers import S3Server


class TestHttpIndex(BackendConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path, site: Site) -> BackendHarness:
        return SiteHarness(tmp_path / "source", site)


class TestPublishedBucket(BackendConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path, s3_server: S3Server, bucket: str) -> BackendHarness:
        return BucketHarness(tmp_path / "source", s3_server, bucket)
