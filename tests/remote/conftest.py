"""Session-scoped storage servers on 127.0.0.1, and per-test buckets and repositories.

S3's fixtures (``s3_server``, ``s3_client``, ``bucket``) and ``static_server`` are in
``tests/conftest.py``, shared with the ADK tests.
"""

from __future__ import annotations

import os

# gcsfs picks its class when imported: the experimental default makes a gRPC call that stalls
# about a minute per operation against any emulator.
os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"

import uuid
from collections.abc import Iterator
from typing import Any

import fsspec
import pytest
from fsspec.implementations.github import GithubFileSystem
from fsspec.implementations.memory import MemoryFileSystem

from tests.remote.servers import FakeGithub, GcsServer
from tests.remote.settings import gcs_options


@pytest.fixture(scope="session")
def gcs_server() -> Iterator[GcsServer]:
    server = GcsServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def gcs_fs(gcs_server: GcsServer) -> Any:
    """A sync gcsfs client for the tests' own writes."""
    return fsspec.filesystem("gs", **gcs_options(gcs_server))


@pytest.fixture
def gcs_bucket(gcs_server: GcsServer, gcs_fs: Any) -> Iterator[str]:
    name = f"skills-{uuid.uuid4().hex[:12]}"
    gcs_fs.mkdir(name)
    gcs_server.log.reset()
    yield name
    gcs_server.log.reset()


@pytest.fixture(scope="session")
def github() -> Iterator[FakeGithub]:
    """A fake GitHub API; ``github://`` resolves to the real GithubFileSystem pointed at it."""
    fake = FakeGithub().start()
    loopback = type(
        "LoopbackGithubFileSystem",
        (GithubFileSystem,),
        {
            "url": fake.url + "/repos/{org}/{repo}/git/trees/{sha}",
            "content_url": fake.url + "/repos/{org}/{repo}/contents/{path}?ref={sha}",
        },
    )
    original = fsspec.get_filesystem_class("github")
    fsspec.register_implementation("github", loopback, clobber=True)
    yield fake
    fsspec.register_implementation("github", original, clobber=True)
    fake.stop()


@pytest.fixture
def repo(github: FakeGithub) -> Iterator[str]:
    """A fresh, empty repository ``org/<repo>`` with a ``main`` branch; returns its name."""
    name = f"repo-{uuid.uuid4().hex[:8]}"
    github.repos[("org", name, "main")] = {}
    github.log.reset()
    yield name
    github.log.reset()


@pytest.fixture
def memory_store() -> Iterator[MemoryFileSystem]:
    """fsspec's process-wide memory filesystem, emptied before and after the test."""
    fs = MemoryFileSystem()
    _clear(fs)
    yield fs
    _clear(fs)


def _clear(fs: MemoryFileSystem) -> None:
    fs.store.clear()
    fs.pseudo_dirs.clear()
    fs.pseudo_dirs.append("")
