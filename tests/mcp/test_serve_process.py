"""`skillfs serve` as a real process, driven by the SDK's ClientSession over stdio and over
streamable HTTP: list, get, read every file against its digest, hear about a new skill."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.session import IncomingMessage
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourcesListChanged, listen

from backends._mcp.extension import SKILLS_EXTENSION
from skills_core import _codes as codes
from skills_core.mcp._server import WARNINGS_META
from tests.mcp.client import get_skill, list_skills, read_verified
from tests.mcp.conftest import PNG, ROOT, SKILLS, write_tree

EVENT_TIMEOUT = 30  # a guard against hanging, not a measurement
SERVE = [sys.executable, "-m", "skills_core.cli", "serve"]
NEW_SKILL = {"notes/SKILL.md": "---\nname: notes\ndescription: Takes notes.\n---\nWrite.\n"}


def stdio_params(root: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=SERVE[0], args=[*SERVE[1:], str(root), *extra], cwd=ROOT, env=dict(os.environ)
    )


async def check_the_extension(session: ClientSession, root: Path) -> None:
    assert SKILLS_EXTENSION in (session.server_capabilities.extensions or {})
    entries = await list_skills(session)
    assert [entry["uri"] for entry in entries] == [
        "skill://deploy/SKILL.md",
        "skill://pdf/SKILL.md",
    ]
    entry = await get_skill(session, "skill://pdf/SKILL.md")
    assert entry["frontmatter"] == {"name": "pdf", "description": "Fill PDF forms. Use for PDFs."}
    files = await read_verified(session, entry)
    assert files["skill://pdf/assets/logo.png"] == PNG
    assert files["skill://pdf/SKILL.md"] == SKILLS["pdf/SKILL.md"].encode()
    assert sorted(files) == [
        "skill://pdf/SKILL.md",
        "skill://pdf/assets/logo.png",
        "skill://pdf/references/forms.md",
        "skill://pdf/scripts/fill.py",
    ]
    async with listen(session, resources_list_changed=True) as changes:
        await asyncio.to_thread(write_tree, root, NEW_SKILL)
        async with asyncio.timeout(EVENT_TIMEOUT):
            assert isinstance(await anext(changes), ResourcesListChanged)
    uris = [entry["uri"] for entry in await list_skills(session)]
    assert "skill://notes/SKILL.md" in uris


async def test_stdio_serves_the_extension_and_announces_a_new_skill(skills_root: Path) -> None:
    async with (
        stdio_client(stdio_params(skills_root)) as (read, write),
        ClientSession(read, write, extensions={SKILLS_EXTENSION: {}}) as session,
    ):
        await session.discover()
        assert session.protocol_version == "2026-07-28"
        await check_the_extension(session, skills_root)


async def test_stdio_serves_plain_tools_to_a_handshake_era_client(skills_root: Path) -> None:
    changed = asyncio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            changed.set()

    async with (
        stdio_client(stdio_params(skills_root)) as (read, write),
        ClientSession(read, write, message_handler=on_message) as session,
    ):
        result = await session.initialize()
        assert result.protocol_version == "2025-11-25"
        assert result.capabilities.resources is not None
        assert result.capabilities.resources.list_changed
        assert result.capabilities.tools is not None
        assert result.capabilities.tools.list_changed
        tools = await session.list_tools()
        assert [tool.name for tool in tools.tools] == [
            "list_skills",
            "search_skills",
            "load_skill",
            "load_skill_resource",
        ]  # no run_skill_script: scripts need --allow-scripts
        listed = await session.call_tool("list_skills", {})
        assert [s["name"] for s in listed.structured_content["skills"]] == ["deploy", "pdf"]
        loaded = await session.call_tool("load_skill", {"skill_name": "pdf"})
        assert loaded.structured_content["instructions"].startswith("# PDF")
        assert loaded.structured_content["base_location"].endswith("pdf")
        resource = await session.call_tool(
            "load_skill_resource", {"skill_name": "pdf", "file_path": "references/forms.md"}
        )
        assert json.loads(resource.content[0].text)["content"].startswith("# Forms")
        missing = await session.call_tool("load_skill", {"skill_name": "nope"})
        assert missing.is_error
        assert missing.structured_content["error_code"] == "SKILL_NOT_FOUND"
        await asyncio.to_thread(write_tree, skills_root, NEW_SKILL)
        async with asyncio.timeout(EVENT_TIMEOUT):
            await changed.wait()


async def test_stdio_serves_a_skill_with_a_long_description_with_its_warning(
    tmp_path: Path,
) -> None:
    description = "Summarises long design reviews into decisions and owners. " * 20
    write_tree(
        tmp_path,
        {
            "review-digest/SKILL.md": f"---\nname: review-digest\n"
            f"description: {description.strip()}\n---\n# Digest\n"
        },
    )
    async with (
        stdio_client(stdio_params(tmp_path, "--no-watch")) as (read, write),
        ClientSession(read, write, extensions={SKILLS_EXTENSION: {}}) as session,
    ):
        await session.discover()
        (entry,) = await list_skills(session)
    assert entry["frontmatter"]["description"] == description.strip()
    (warning,) = entry["_meta"][WARNINGS_META]
    assert warning["code"] == codes.TOO_LONG


class HttpServe:
    """`skillfs serve --http --port 0` in a process; its URL is read from stderr."""

    def __init__(self, process: asyncio.subprocess.Process, url: str) -> None:
        self.process = process
        self.url = url

    @classmethod
    async def start(cls, root: Path, *extra: str) -> HttpServe:
        process = await asyncio.create_subprocess_exec(
            *SERVE, str(root), "--http", "--port", "0", *extra,
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stderr is not None
        async with asyncio.timeout(EVENT_TIMEOUT):
            while b" at http://" not in (line := await process.stderr.readline()):
                assert line, "skillfs serve exited before serving"
        return cls(process, line.decode().rsplit(" at ", 1)[1].strip())

    async def interrupt(self) -> int:
        self.process.send_signal(signal.SIGINT)
        async with asyncio.timeout(EVENT_TIMEOUT):
            return await self.process.wait()


@pytest.fixture
async def http_serve(skills_root: Path) -> AsyncIterator[HttpServe]:
    served = await HttpServe.start(skills_root)
    yield served
    if served.process.returncode is None:
        served.process.kill()
        await served.process.wait()


async def test_http_serves_the_extension_on_loopback(
    http_serve: HttpServe, skills_root: Path
) -> None:
    assert http_serve.url.startswith("http://127.0.0.1:")
    assert http_serve.url.endswith("/mcp")
    async with (
        streamable_http_client(http_serve.url) as (read, write),
        ClientSession(read, write, extensions={SKILLS_EXTENSION: {}}) as session,
    ):
        await session.discover()
        await check_the_extension(session, skills_root)
    assert await http_serve.interrupt() == 0


async def test_scripts_run_only_when_allowed(skills_root: Path) -> None:
    async with (
        stdio_client(stdio_params(skills_root, "--allow-scripts")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        ran = await session.call_tool(
            "run_skill_script", {"skill_name": "pdf", "file_path": "scripts/fill.py"}
        )
        assert ran.structured_content["stdout"] == "filled\n"


def test_without_the_sdk_serve_names_the_extra_to_install(skills_root: Path) -> None:
    hide_sdk = "import sys; sys.modules['mcp'] = None; from skills_core.cli import main; "
    done = subprocess.run(
        [sys.executable, "-c", hide_sdk + f"sys.exit(main(['serve', {str(skills_root)!r}]))"],
        cwd=ROOT, capture_output=True, text=True, timeout=EVENT_TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert 'pip install "agent-skillfs[mcp]"' in done.stderr


def test_the_cli_lists_serve_without_loading_the_sdk() -> None:
    code = "import sys; from skills_core.cli import main; main(['serve', '--help']); "
    code += "print('mcp' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
        timeout=EVENT_TIMEOUT, check=True,
    )  # fmt: skip
    assert "--allow-scripts" in done.stdout
    assert done.stdout.strip().endswith("False")


def test_a_source_that_cannot_be_listed_exits_2_before_serving(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SERVE, str(tmp_path / "missing")], cwd=ROOT, capture_output=True, text=True,
        timeout=EVENT_TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "cannot list skills folder" in done.stderr
    assert done.stdout == ""  # stdout belongs to the protocol


def wait_for(stream: int, text: bytes) -> bytes:
    """What ``stream`` (a file descriptor) gives until ``text`` appears in it."""
    seen = b""
    while text not in seen:
        ready, _, _ = select.select([stream], [], [], EVENT_TIMEOUT)
        assert ready, f"nothing more after {seen!r}"
        chunk = os.read(stream, 4096)
        assert chunk, f"closed after {seen!r}"
        seen += chunk
    return seen


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "pipe"])
def test_sigint_ends_stdio_serving_with_exit_0(skills_root: Path, terminal: bool) -> None:
    """Ctrl-C in a terminal, or SIGINT from a client, while the server waits for a line."""
    reader, writer = pty.openpty() if terminal else os.pipe()  # what the server prints
    stdin = writer if terminal else subprocess.PIPE
    with subprocess.Popen(
        [*SERVE, str(skills_root), "--no-cache"], cwd=ROOT, stdin=stdin, stdout=writer,
        stderr=writer,
    ) as served:  # fmt: skip
        os.close(writer)
        try:
            wait_for(reader, b"over stdio")
            if served.stdin is None:
                os.write(reader, b"hello\n")  # typed at the terminal
            else:
                served.stdin.write(b"hello\n")
                served.stdin.flush()
            wait_for(reader, b"Parse error")  # answered: the server waits for the next line
            served.send_signal(signal.SIGINT)
            assert served.wait(timeout=EVENT_TIMEOUT) == 0
        finally:
            served.kill()
            os.close(reader)
