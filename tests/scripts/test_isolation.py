"""What a script can reach: the agent's environment, the network, the filesystem.

The sandbox hides them; the process runner, as its documentation says, does not (same user,
same network, same /proc), and these tests hold both to what the docs promise.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from skills_core import codes
from skills_core.tools import ProcessRunner, SandboxRunner, ScriptPolicy
from skills_core.tools.runners.choice import default_runner, sandbox_works
from tests.scripts import attacks
from tests.scripts.support import make_runner, run_script, write_skill

ROOT = Path(__file__).resolve().parents[2]


def hunt_as_an_agent_with_secrets(runner: str, skills_root: Path) -> tuple[dict[str, str], str]:
    """Start an agent process holding secrets in its environment; run the hunting script."""
    key_file = skills_root.parent / "service-account.json"
    key = f"private-key-{uuid.uuid4().hex}"
    key_file.write_text(key)
    secrets = {
        "AWS_SECRET_ACCESS_KEY": f"aws-{uuid.uuid4().hex}",
        "OPENAI_API_KEY": f"sk-{uuid.uuid4().hex}",
        "GOOGLE_APPLICATION_CREDENTIALS": str(key_file),
        "key": key,
    }
    script = (  # the hunt gets the agent's pid and the key file's path, as if guessed
        "import os, runpy, sys; sys.argv = ['driver', *sys.argv[1:], str(os.getpid()),"
        " os.environ['GOOGLE_APPLICATION_CREDENTIALS']];"
        "runpy.run_module('tests.scripts.driver', run_name='__main__')"
    )
    agent = [sys.executable, "-c", script, runner, str(skills_root), "attack", "scripts/hunt.py"]
    completed = subprocess.run(
        agent,
        env={**os.environ, **secrets, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    return secrets, completed.stdout


def test_the_agents_environment_is_out_of_the_sandboxs_sight(skills_root: Path) -> None:
    make_runner("sandbox")  # skips without bwrap
    write_skill(skills_root, "attack", {"scripts/hunt.py": attacks.HUNT_SECRETS})
    secrets, output = hunt_as_an_agent_with_secrets("sandbox", skills_root)
    result = json.loads(output)
    assert result["exit_code"] == 0, result
    assert json.loads(result["stdout"]) == {}  # nothing: env, ancestors, /proc, key file
    for value in secrets.values():
        assert value not in result["stdout"]


def test_the_process_runner_scrubs_the_environment_but_shares_proc(skills_root: Path) -> None:
    write_skill(skills_root, "attack", {"scripts/hunt.py": attacks.HUNT_SECRETS})
    secrets, output = hunt_as_an_agent_with_secrets("process", skills_root)
    found = json.loads(json.loads(output)["stdout"])
    assert "os.environ" not in found  # the script's own environment is scrubbed
    leaked = {item for items in found.values() for item in items}
    assert f"OPENAI_API_KEY={secrets['OPENAI_API_KEY']}" in leaked  # as docs/scripts.md says
    assert "the agent by pid" in found
    assert found["credentials file"] == [secrets["key"]]


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A port on the host's loopback that accepts connections."""
    server = socket.create_server(("127.0.0.1", 0))
    yield server.getsockname()[1]
    server.close()


@pytest.mark.parametrize(
    ("runner_name", "network", "expected"),
    [
        ("sandbox", False, "refused ConnectionRefusedError"),
        ("sandbox", True, "connected"),
        ("process", False, "connected"),  # the process runner shares the agent's network
    ],
)
async def test_loopback_is_out_of_reach_unless_the_sandbox_allows_network(
    skills_root: Path, listening_port: int, runner_name: str, network: bool, expected: str
) -> None:
    write_skill(skills_root, "attack", {"scripts/connect.py": attacks.CONNECT})
    runner = make_runner(runner_name)
    result = await run_script(
        skills_root, runner, "attack", "scripts/connect.py", [str(listening_port)], network=network
    )
    assert result["stdout"].strip() == expected


async def test_sandboxed_writes_land_only_in_the_scratch_folder(
    skills_root: Path, tmp_path: Path
) -> None:
    runner = make_runner("sandbox")
    folder = write_skill(skills_root, "attack", {"scripts/write.py": attacks.WRITE_EVERYWHERE})
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("the agent's secret")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    result = await run_script(
        skills_root,
        runner,
        "attack",
        "scripts/write.py",
        [str(outside / "escape.txt"), str(secret)],
    )
    verdicts = dict(line.split(" ", 1) for line in result["stdout"].splitlines())
    assert verdicts.pop("scratch") == verdicts.pop("home") == verdicts.pop("tmp") == "written"
    assert verdicts.pop("secret") == "unreadable FileNotFoundError"  # host files are not there
    assert all(verdict.startswith("refused") for verdict in verdicts.values()), verdicts
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert list(outside.iterdir()) == []
    assert not await asyncio.to_thread(os.path.exists, "/etc/skillfs-attack")


async def test_asking_for_the_sandbox_without_bwrap_is_a_clear_error(skills_root: Path) -> None:
    write_skill(skills_root, "attack", {"scripts/connect.py": attacks.CONNECT})
    runner = SandboxRunner(bwrap="/nonexistent/bwrap")
    result = await run_script(skills_root, runner, "attack", "scripts/connect.py", ["1"])
    assert result["error_code"] == codes.RUNNER_UNAVAILABLE
    assert "apt-get install bubblewrap" in result["error"]
    assert "ScriptPolicy(runner=ProcessRunner())" in result["error"]


async def test_a_sandbox_that_cannot_start_says_why(skills_root: Path) -> None:
    write_skill(skills_root, "attack", {"scripts/connect.py": attacks.CONNECT})
    runner = make_runner("sandbox")
    result = await run_script(
        skills_root, runner, "attack", "scripts/connect.py", ["1"], readable=("/nonexistent/data",)
    )
    assert result["error_code"] == codes.SCRIPT_FAILED
    assert "bwrap" in result["error"]
    assert "/nonexistent/data" in result["error"]


def test_policies_name_no_runner_by_default() -> None:
    assert ScriptPolicy().runner is None  # resolved per call: the sandbox where it works


async def test_without_bwrap_the_default_is_the_process_runner_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    sandbox_works.cache_clear()
    try:
        runner = await default_runner()
    finally:
        sandbox_works.cache_clear()
    assert isinstance(runner, ProcessRunner)
    assert "WITHOUT a sandbox" in caplog.text
    assert "apt-get install bubblewrap" in caplog.text


async def test_where_bwrap_works_the_default_is_the_sandbox() -> None:
    make_runner("sandbox")  # skips without bwrap
    assert isinstance(await default_runner(), SandboxRunner)
