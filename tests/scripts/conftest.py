"""Fixtures for the script attack suite: each local runner, a skills folder, a marker."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scripts.processes import alive_with
from tests.scripts.support import LOCAL_RUNNERS


@pytest.fixture(params=LOCAL_RUNNERS)
def runner_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def marker() -> Iterator[str]:
    """A word the attacks put in their processes' command lines; survivors are killed after."""
    word = f"skillfs-attack-{uuid.uuid4().hex}"
    yield word
    for pid in alive_with(word):
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    return tmp_path / "skills"
