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
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from skills_core import _codes as codes
from skills_core.tools import ProcessRunner, SandboxRunner, ScriptPolicy
from skills_core.tools._runners.sandbox import (
    ACCOUNTS,
    ETC,
    SANDBOX_ID,
    default_runner,
    sandbox_works,
)
from tests.scripts import attacks, users
from tests.scripts.support import make_runner, run_script, write_skill

ROOT = Path(__file__).resolve().parents[2]


def hunt_as_an_agent_with_secrets(
    runner: str,
    skills_root: Path,
    *,
    home: Path,
    agent: users.Agent | None = None,
    planted: Sequence[Path] = (),
) -> tuple[dict[str, str], str]:
    """Start an agent process holding secrets in its environment; run the hunting script.

    The hunt gets the agent's pid and the paths of the agent's key file and of the ``planted``
    secret files, as if guessed.
    """
    agent = agent or users.current()
    key_file = home / "service-account.json"
    key = f"private-key-{uuid.uuid4().hex}"
    key_file.write_text(key)
    os.chown(key_file, agent.uid, agent.gid)
    secrets = {
        "AWS_SECRET_ACCESS_KEY": f"aws-{uuid.uuid4().hex}",
        "OPENAI_API_KEY": f"sk-{uuid.uuid4().hex}",
        "GOOGLE_APPLICATION_CREDENTIALS": str(key_file),
        "key": key,
    }
    script = (
        "import os, runpy, sys; sys.argv = ['driver', *sys.argv[1:5], str(os.getpid()),"
        " *sys.argv[5:]]; runpy.run_module('tests.scripts.driver', run_name='__main__')"
    )
    hunt = [runner, str(skills_root), "attack", "scripts/hunt.py", str(key_file), *planted]
    completed = subprocess.run(
        agent.command([sys.executable, "-c", script, *map(str, hunt)]),
        env={**os.environ, **secrets, "HOME": str(home), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    return secrets, completed.stdout


def plant(folder: Path, owner: int) -> Path:
    """A secret file in ``folder``, readable by ``owner`` alone."""
    secret = folder / f"skillfs-secret-{uuid.uuid4().hex}"
    secret.write_text(f"secret-{uuid.uuid4().hex}")
    secret.chmod(0o600)
    os.chown(secret, owner, -1)
    return secret


@pytest.fixture
def secrets_at_home(agent: users.Agent, agent_folder: Path) -> Iterator[list[Path]]:
    """Secrets in the agent's home and, as root, root's home and another user's home."""
    home = agent_folder / "home"
    home.mkdir()
    planted = [plant(agent.own(home), agent.uid)]
    if os.getuid() == 0:
        other = agent_folder / "other"
        other.mkdir(mode=0o700)
        os.chown(other, agent.uid + 1, agent.gid + 1)
        planted += [plant(other, agent.uid + 1), plant(Path("/root"), 0)]
    yield planted
    for secret in planted:
        secret.unlink()


def agent_skill(agent: users.Agent, folder: Path, files: dict[str, str]) -> Path:
    """A skills folder the agent owns, holding one skill ``attack`` with ``files``."""
    root = folder / "skills"
    write_skill(root, "attack", files)
    for path in [root, *root.rglob("*")]:
        os.chown(path, agent.uid, agent.gid)
    return root


def test_the_sandbox_shows_no_secret_of_the_host_whoever_runs_the_agent(
    agent: users.Agent, agent_folder: Path, secrets_at_home: list[Path]
) -> None:
    make_runner("sandbox")  # skips without bwrap
    skills = agent_skill(agent, agent_folder, {"scripts/hunt.py": attacks.HUNT_SECRETS})
    home = secrets_at_home[0].parent
    secrets, output = hunt_as_an_agent_with_secrets(
        "sandbox", skills, home=home, agent=agent, planted=secrets_at_home
    )
    result = json.loads(output)
    assert result["exit_code"] == 0, result
    # nothing: environments, /proc, /etc/shadow, SSH host keys, the key file, every home
    assert json.loads(result["stdout"]) == {}
    for value in [*secrets.values(), *(path.read_text() for path in secrets_at_home)]:
        assert value not in result["stdout"]


def test_the_sandbox_still_gives_scripts_what_they_need(
    agent: users.Agent, agent_folder: Path
) -> None:
    make_runner("sandbox")  # skips without bwrap
    skills = agent_skill(agent, agent_folder, {"scripts/work.py": attacks.SYSTEM_AT_WORK})
    driver = [sys.executable, "-m", "tests.scripts.driver", "sandbox", str(skills)]
    completed = subprocess.run(
        agent.command([*driver, "attack", "scripts/work.py"]),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=ROOT,
    )
    result = json.loads(completed.stdout)
    assert (result["exit_code"], result["stderr"]) == (0, ""), result
    seen = json.loads(result["stdout"])
    assert seen["ids"] == [SANDBOX_ID] * 4  # never root, whoever runs the agent
    assert seen["name"] == "sandbox"
    assert seen["passwd"] == [f"sandbox:x:{SANDBOX_ID}:{SANDBOX_ID}:skill script:/tmp:/bin/sh"]
    assert seen["capabilities"] == ["0000000000000000"]
    shown = {path.split("/")[2] for path in (*ETC, *ACCOUNTS)}
    assert set(seen["etc"]) <= shown  # no shadow, ssh, pip.conf, ...
    assert seen["authorities"] > 0
    assert seen["ca file"] is True
    assert seen["shell"] == "42\n"  # sh, ls, python3, and a write to the scratch folder


def test_the_process_runner_scrubs_the_environment_but_shares_proc(skills_root: Path) -> None:
    write_skill(skills_root, "attack", {"scripts/hunt.py": attacks.HUNT_SECRETS})
    secrets, output = hunt_as_an_agent_with_secrets("process", skills_root, home=skills_root)
    found = json.loads(json.loads(output)["stdout"])
    assert "os.environ" not in found  # the script's own environment is scrubbed
    leaked = {item for items in found.values() for item in items}
    assert f"OPENAI_API_KEY={secrets['OPENAI_API_KEY']}" in leaked  # as docs/scripts.md says
    assert "the agent by pid" in found
    assert found[secrets["GOOGLE_APPLICATION_CREDENTIALS"]] == [secrets["key"]]


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
