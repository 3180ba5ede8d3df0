"""An MCP skill's script runs only once the user approved that skill's content: a real server
(the official SDK's, over stdio and streamable HTTP), a real script process, `skillfs approve`
as a real process."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from mcp import StdioServerParameters

from backends import open_backend
from backends._digests import digest_of
from backends._mcp.backend import McpSkillsBackend
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core._trust.approvals import ApprovalStore
from skills_core._trust.policy import TrustPolicy
from skills_core.tools import ProcessRunner, ScriptPolicy, SkillTools
from tests.mcp.conftest import ROOT, write_tree
from tests.mcp.harness import ServedFolder
from tests.mcp.recording import RequestLog
from tests.scripts.support import MARK

pytestmark = pytest.mark.asyncio

GUARD = 60  # against hanging, not a measurement
SCRIPT = "scripts/mark.py"
TREE = {
    "deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys the app.\n---\nRun it.\n",
    "deploy/scripts/mark.py": MARK.format("ran", "ok"),
}
CHANGED = MARK.format("changed", "changed")


class Served(NamedTuple):
    """A server of TREE, the backend reading it, its ``mcp+`` URL, and how to change a file."""

    backend: McpSkillsBackend
    url: str
    write: Callable[[str, str], Awaitable[None]]
    log: RequestLog | None


@pytest.fixture(params=["http", "stdio"])
async def served(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Served]:
    root = await asyncio.to_thread(write_tree, tmp_path / "skills", TREE)
    if request.param == "http":
        harness = ServedFolder(root)
        log = RequestLog()
        harness.server.lowlevel.middleware.append(log)
        url = await harness.start({})

        async def write_served(path: str, text: str) -> None:
            await harness.write(path, text.encode())

        async with McpSkillsBackend(url, label="team") as backend:
            yield Served(backend, f"mcp+{url}#team", write_served, log)
        await harness.close()
        return
    serve = ["-m", "skills_core.cli", "serve", str(root)]
    params = StdioServerParameters(
        command=sys.executable, args=serve, cwd=ROOT, env=dict(os.environ)
    )

    async def write_file(path: str, text: str) -> None:  # the server's watch sees it
        await asyncio.to_thread(write_tree, root, {path: text})

    async with McpSkillsBackend(params, label="team") as backend:
        yield Served(backend, backend.url, write_file, None)


async def skillfs(*args: str, cache: Path) -> tuple[int, str]:
    """Run ``skillfs`` as a process with its own cache folder: exit code and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "skills_core.cli",
        *args,
        cwd=ROOT,
        env={**os.environ, "SKILLFS_CACHE_DIR": str(cache)},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(GUARD):
        _, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, err.decode()


async def listed_again(catalog: SkillCatalog, text: str) -> None:
    """Refresh until the catalog lists the script with ``text``'s digest."""
    async with asyncio.timeout(GUARD):
        while True:
            await catalog.refresh()
            files = {file.path: file.fingerprint for file in await catalog.files("deploy")}
            if files[SCRIPT] == digest_of(text.encode()):
                return
            await asyncio.sleep(0.1)


async def test_a_script_runs_once_approved_and_not_after_its_content_changes(
    served: Served, tmp_path: Path
) -> None:
    store = await asyncio.to_thread(ApprovalStore, tmp_path / "cache")
    catalog = SkillCatalog(served.backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    tools = SkillTools(catalog, scripts=ScriptPolicy(runner=ProcessRunner()))
    marker = tmp_path / "ran"
    try:
        refused = await tools.run_skill_script("deploy", SCRIPT, [str(marker)])
        assert refused == {
            "error": "skill 'deploy' may not run its scripts: skills served over MCP run no "
            "script until the user approves its content; the user can approve this content "
            f"with: skillfs approve {shlex.quote(served.url)} deploy --scripts",
            "error_code": codes.SCRIPT_NOT_APPROVED,
        }  # before: exit code 0, and nobody asked
        assert not marker.exists()

        if served.log is not None:
            served.log.take()
        code, err = await skillfs("approve", served.url, "deploy", "--scripts", cache=store.folder)
        assert code == 0, err
        if served.log is not None:  # nothing fetched at approval: the entry's digests
            assert "resources/read" not in served.log.take()
        ran = await tools.run_skill_script("deploy", SCRIPT, [str(marker)])
        assert (ran.get("exit_code"), ran.get("stdout")) == (0, "ok\n"), ran
        assert marker.read_text() == "ran"
        marker.unlink()

        await served.write("deploy/scripts/mark.py", CHANGED)
        await listed_again(catalog, CHANGED)
        changed = await tools.run_skill_script("deploy", SCRIPT, [str(marker)])
        assert changed["error_code"] == codes.SCRIPT_NOT_APPROVED, changed
        assert not marker.exists()

        await tools.script_approvals.approve("deploy")  # from Python, as a confirmation does
        ran = await tools.run_skill_script("deploy", SCRIPT, [str(marker)])
        assert (ran.get("exit_code"), ran.get("stdout")) == (0, "changed\n"), ran
    finally:
        await tools.close()
    approvals = await asyncio.to_thread(lambda: ApprovalStore(store.folder).approvals())
    assert [approval.source for approval in approvals] == 2 * ["mcp[team]:skill://deploy/SKILL.md"]


async def test_an_approval_holds_for_its_server_label_and_uri_only(
    served: Served, tmp_path: Path
) -> None:
    store = await asyncio.to_thread(ApprovalStore, tmp_path / "cache")
    trust = TrustPolicy(approvals=store)
    policy = ScriptPolicy(runner=ProcessRunner())
    team = SkillTools(SkillCatalog(served.backend, trust=trust), scripts=policy)
    await team.catalog.refresh()
    await team.script_approvals.approve("deploy")
    other = open_backend(served.url.removesuffix("#team"))  # the same server, another label
    others = SkillTools(SkillCatalog(other, trust=trust), scripts=policy)
    marker = tmp_path / "ran"
    try:
        await others.catalog.refresh()
        refused = await others.run_skill_script("deploy", SCRIPT, [str(marker)])
        assert refused["error_code"] == codes.SCRIPT_NOT_APPROVED  # the same content, elsewhere
        assert not marker.exists()
        ran = await team.run_skill_script("deploy", SCRIPT, [str(marker)])
        assert ran.get("exit_code") == 0, ran
    finally:
        await team.close()
        await others.close()
        await other.aclose()
