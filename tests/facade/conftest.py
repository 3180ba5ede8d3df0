"""The storage a facade test runs over: a local folder named by path, or an S3 bucket (moto)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from backends.testing import BackendHarness
from skills_core.adk._toolset import Source
from tests.backends.harnesses import LocalHarness
from tests.facade.skills import TREE
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server


@dataclass
class Store:
    """Skills stored somewhere, the source that names them, and where each skill lives."""

    harness: BackendHarness
    source: Source
    root: str

    def folder(self, name: str) -> str:
        return f"{self.root}/{name}"


@pytest.fixture(params=["folder", "s3"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "folder":
        local = LocalHarness(tmp_path / "skills")
        await local.make_backend(TREE)
        yield Store(local, str(local.root), str(local.root))
        return
    s3: S3Harness = request.getfixturevalue("s3_harness")
    yield Store(s3, await s3.make_backend(TREE), s3.url)


@pytest.fixture
def s3_harness(s3_server: S3Server, s3_client: Any, bucket: str) -> S3Harness:
    return S3Harness(s3_server, s3_client, bucket)
