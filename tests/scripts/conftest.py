"""Fixtures for the script attack suite: each local runner, a skills folder, a marker."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scripts import users
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


@pytest.fixture(scope="session", params=["root", "normal user"])
def agent(request: pytest.FixtureRequest) -> users.Agent:
    """Who runs the agent: root, then a normal user (created when the tests run as root)."""
    if request.param == "root":
        if os.getuid() != 0:
            pytest.skip("running an agent as root needs the tests to run as root (CI does)")
        return users.current()
    reason = users.can_switch_users()
    if reason is not None:
        pytest.skip(f"cannot run an agent as a normal user here: {reason}")
    return users.normal_user()


@pytest.fixture
def agent_folder(agent: users.Agent) -> Iterator[Path]:
    """A folder the agent owns, outside pytest's (private) temporary tree."""
    folder = Path(tempfile.mkdtemp(prefix="skillfs-agent-"))
    folder.chmod(0o755)
    yield agent.own(folder)
    shutil.rmtree(folder)
