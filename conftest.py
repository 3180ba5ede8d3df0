"""Fixtures for the whole suite: every async test fails if skillfs blocks the event loop."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from blockbuster import BlockBuster, blockbuster_ctx

SKILLFS_PACKAGES = ["backends", "skills_core"]


@pytest.fixture(autouse=True)
def no_blocking_io(request: pytest.FixtureRequest) -> Iterator[BlockBuster | None]:
    """Raise BlockingError when skillfs code does blocking I/O on a running event loop."""
    if not inspect.iscoroutinefunction(request.function):
        yield None
        return
    with blockbuster_ctx(SKILLFS_PACKAGES) as blockbuster:
        yield blockbuster


@pytest.fixture(autouse=True)
def own_cache_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets an empty catalog cache folder (the CLI caches by default), never ~/.cache."""
    monkeypatch.setenv("SKILLFS_CACHE_DIR", str(tmp_path_factory.mktemp("skillfs-cache")))
