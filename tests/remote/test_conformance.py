"""The whole conformance suite on every storage FsspecBackend and BundleBackend serve, against
real servers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fsspec.implementations.memory import MemoryFileSystem

from backends.testing import BackendConformance, BackendHarness
from tests.remote.harnesses import (
    FileUrlHarness,
    GcsHarness,
    GithubHarness,
    LocalZipHarness,
    MemoryFsHarness,
    S3Harness,
    S3ZipHarness,
)
from tests.remote.servers import FakeGithub, GcsServer, S3Server


class TestS3(BackendConformance):
    @pytest.fixture
    def harness(self, s3_server: S3Server, s3_client: Any, bucket: str) -> BackendHarness:
        return S3Harness(s3_server, s3_client, bucket)


class TestGcs(BackendConformance):
    @pytest.fixture
    def harness(self, gcs_server: GcsServer, gcs_fs: Any, gcs_bucket: str) -> BackendHarness:
        return GcsHarness(gcs_server, gcs_fs, gcs_bucket)


class TestGithub(BackendConformance):
    @pytest.fixture
    def harness(self, github: FakeGithub, repo: str) -> BackendHarness:
        return GithubHarness(github, repo)


class TestLocalZip(BackendConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return LocalZipHarness(tmp_path)


class TestZipOnS3(BackendConformance):
    @pytest.fixture
    def harness(self, s3_server: S3Server, s3_client: Any, bucket: str) -> BackendHarness:
        return S3ZipHarness(s3_server, s3_client, bucket)


class TestFsspecMemory(BackendConformance):
    @pytest.fixture
    def harness(self, memory_store: MemoryFileSystem) -> BackendHarness:
        return MemoryFsHarness(memory_store)


class TestFileUrl(BackendConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return FileUrlHarness(tmp_path)
