"""The official MCP conformance suite's SEP-2640 scenarios, run against skillfs itself.

The server scenarios run against ``skillfs serve --http`` (loopback, a free port) over the
bundled examples and over the skills of :mod:`tests.mcp.suite_fixtures`, all together and each
alone (the suite checks the first entry it sees); the client scenarios run
:mod:`tests.mcp.suite_host`. Every check must pass. The suite needs node 22 or newer:
``.ci/run`` installs both from the npm registry and points ``SKILLFS_CONFORMANCE`` at them,
which runs this module; without it the module is skipped, saying so.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from skills_core.cli._source import EXAMPLES
from tests.mcp.conftest import ROOT
from tests.mcp.suite_fixtures import SKILLS, write_fixtures

SUITE = os.environ.get("SKILLFS_CONFORMANCE", "")
pytestmark = [
    pytest.mark.skipif(
        not SUITE, reason="SKILLFS_CONFORMANCE names no install of the suite (.ci/run runs it)"
    ),
    pytest.mark.timeout(300),
]
SERVER_SCENARIOS = (
    "sep-2640-skills-enumeration",
    "sep-2640-skills-manifest",
    "sep-2640-skills-directory",
)
CLIENT_SCENARIOS = [
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
]
SERVED = [
    "examples",
    "fixtures",
    *(f"examples/{path.name}" for path in sorted(EXAMPLES.iterdir())),
    *(f"fixtures/{name}" for name in sorted(SKILLS)),
]
PASSED = {"SUCCESS", "INFO"}
SERVE = [sys.executable, "-m", "skills_core.cli", "serve", "--http", "--port", "0"]


class Suite:
    """The installed suite: ``node`` 22+ and the conformance command."""

    def __init__(self, folder: Path) -> None:
        modules = folder / "node_modules"
        self.node = modules / ".bin" / "node"
        self.cli = modules / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
        if not (self.node.exists() and self.cli.exists()):
            pytest.fail(f"SKILLFS_CONFORMANCE={folder}: no node or conformance suite installed")
        version = subprocess.run(
            [self.node, "--version"], capture_output=True, text=True, check=True
        ).stdout
        if int(version.lstrip("v").split(".")[0]) < 22:
            pytest.fail(f"the suite needs node 22 or newer, not {version.strip()}")

    def run(self, *arguments: str) -> list[dict[str, Any]]:
        """Run one scenario; its checks, each with the scenario's output when it failed."""
        with tempfile.TemporaryDirectory() as out:
            done = subprocess.run(
                [self.node, self.cli, *arguments, "--output-dir", out],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            checks = [
                {**check, "file": str(found.relative_to(out))}
                for found in Path(out).rglob("checks.json")
                for check in json.loads(found.read_text())
            ]
        return checks or [{"status": "NO CHECKS", "output": done.stdout[-2000:] + done.stderr}]


@pytest.fixture(scope="module")
def suite() -> Suite:
    return Suite(Path(SUITE))


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each served set's folder: the examples, the fixtures, and each skill alone."""
    base = tmp_path_factory.mktemp("served")
    folders = {"examples": EXAMPLES, "fixtures": base / "fixtures"}
    write_fixtures(folders["fixtures"])
    for served in SERVED:
        kind, _, name = served.partition("/")
        if name:
            alone = base / kind / name
            shutil.copytree(folders[kind] / name, alone / name)
            folders[served] = alone
    return folders


@pytest.fixture(scope="module")
def outcomes(suite: Suite, roots: dict[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Every run's checks, by served set or client scenario: run four at a time."""
    host = f"{shlex.quote(sys.executable)} -m tests.mcp.suite_host"

    def server(served: str) -> list[dict[str, Any]]:
        with _serving(roots[served]) as url:
            return [
                check
                for scenario in SERVER_SCENARIOS
                for check in suite.run("server", "--url", url, "--scenario", scenario)
            ]

    def client(scenario: str) -> list[dict[str, Any]]:
        return suite.run("client", "--command", host, "--scenario", scenario)

    runs = [(served, server) for served in SERVED] + [(name, client) for name in CLIENT_SCENARIOS]
    with ThreadPoolExecutor(4) as pool:
        found = pool.map(lambda run: run[1](run[0]), runs)
        return dict(zip([name for name, _ in runs], found, strict=True))


@pytest.mark.parametrize("served", SERVED)
def test_server_scenarios_pass(outcomes: dict[str, list[dict[str, Any]]], served: str) -> None:
    checks = outcomes[served]
    assert {check["status"] for check in checks} <= PASSED, _failed(checks)


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_client_scenarios_pass(outcomes: dict[str, list[dict[str, Any]]], scenario: str) -> None:
    checks = outcomes[scenario]
    assert {check["status"] for check in checks} <= PASSED, _failed(checks)


def _failed(checks: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{check.get('id')} {check['status']}: {check.get('errorMessage') or check.get('output')}"
        for check in checks
        if check["status"] not in PASSED
    )


@contextlib.contextmanager
def _serving(root: Path) -> Iterator[str]:
    """``skillfs serve --http`` on a free loopback port; its URL, read from what it prints."""
    server = subprocess.Popen(
        [*SERVE, "--no-watch", "--no-cache", str(root)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        while (found := _URL.search(line := server.stderr.readline())) is None:
            assert line, "skillfs serve exited before serving"
        yield found.group(1)
    finally:
        server.kill()
        server.wait()


_URL = re.compile(r" at (http://127\.0\.0\.1:\d+/mcp)$")
