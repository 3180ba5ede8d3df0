"""The lock on S3 (a moto server) and on zip bundles, local and on S3."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from backends.testing import BackendHarness
from tests.remote.harnesses import LocalZipHarness, S3Harness, S3ZipHarness
from tests.remote.servers import S3Server
from tests.support.locking import LockConformance


class TestS3(LockConformance):
    @pytest.fixture
    def harness(self, s3_server: S3Server, s3_client: Any, bucket: str) -> BackendHarness:
        return S3Harness(s3_server, s3_client, bucket)


class TestLocalZip(LockConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return LocalZipHarness(tmp_path)


class TestZipOnS3(LockConformance):
    @pytest.fixture
    def harness(self, s3_server: S3Server, s3_client: Any, bucket: str) -> BackendHarness:
        return S3ZipHarness(s3_server, s3_client, bucket)
