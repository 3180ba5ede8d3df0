"""`skillfs serve` over stdio against a raw client: every request line gets one answer, bad
ones an error with the right code, and a client that goes away ends the server quietly."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from tests.mcp.conftest import ROOT
from tests.mcp.test_serve_process import SERVE

pytestmark = pytest.mark.asyncio

ANSWER_TIMEOUT = 30  # a guard against hanging, not a measurement
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


COUNTING_SERVE = [
    sys.executable,
    "-c",
    """
import atexit, runpy, sys
import mcp_types

adapter = mcp_types.jsonrpc_message_adapter
parse = adapter.validate_json
parsed = []

def counted(data, *args, **kwargs):
    parsed.append(data)
    return parse(data, *args, **kwargs)

adapter.validate_json = counted
atexit.register(lambda: print(f"parsed {len(parsed)} times", file=sys.stderr))
runpy.run_module("skills_core.cli", run_name="__main__")
""",
    "serve",
]
"""``skillfs serve`` that says at exit how often the SDK's JSON-RPC parser ran."""


async def start(
    root: Path, stdout: int = asyncio.subprocess.PIPE, serve: list[str] = SERVE
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *serve,
        str(root),
        "--no-watch",
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=stdout,
        stderr=asyncio.subprocess.PIPE,
    )


def line(message: dict[str, Any] | str) -> bytes:
    return (message if isinstance(message, str) else json.dumps(message)).encode() + b"\n"


async def answer(process: asyncio.subprocess.Process) -> dict[str, Any]:
    assert process.stdout is not None
    async with asyncio.timeout(ANSWER_TIMEOUT):
        received: dict[str, Any] = json.loads(await process.stdout.readline())
    return received


async def finish(process: asyncio.subprocess.Process) -> tuple[int, str]:
    assert process.stdin is not None
    assert process.stderr is not None
    process.stdin.close()
    async with asyncio.timeout(ANSWER_TIMEOUT):
        stderr = (await process.stderr.read()).decode()
        return await process.wait(), stderr


async def test_bad_lines_and_bad_requests_are_answered(skills_root: Path) -> None:
    process = await start(skills_root)
    assert process.stdin is not None
    process.stdin.write(line(INITIALIZE) + line(INITIALIZED))
    assert (await answer(process))["id"] == 1
    sent: list[tuple[dict[str, Any] | str, object, int]] = [
        ("{not json", None, types.PARSE_ERROR),
        ("[" * 100_000, None, types.PARSE_ERROR),
        ({"jsonrpc": "2.0", "id": 7, "method": 5}, 7, types.INVALID_PARAMS),
        (
            {"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": 3},
            "x",
            types.INVALID_PARAMS,
        ),
        ({"jsonrpc": "2.0", "method": "ping", "params": []}, None, types.INVALID_PARAMS),
        (
            {"jsonrpc": "2.0", "id": 9, "method": "skills/list", "params": {"cursor": "9" * 5000}},
            9,
            types.INVALID_PARAMS,
        ),
    ]
    for message, ident, code in sent:
        process.stdin.write(line(message))
        received = await answer(process)
        assert (received["id"], received["error"]["code"]) == (ident, code), received
    process.stdin.write(line({"jsonrpc": "2.0", "id": 2, "result": 3}))  # a bad response
    process.stdin.write(line({"jsonrpc": "2.0", "id": 10, "method": "ping"}))
    assert await answer(process) == {"jsonrpc": "2.0", "id": 10, "result": {}}  # nothing between
    code, stderr = await finish(process)
    assert code == 0
    assert "Traceback" not in stderr


async def test_a_client_that_goes_away_ends_the_server_quietly(skills_root: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        process = await start(skills_root, stdout=write_end)
    finally:
        os.close(write_end)
    os.close(read_end)  # gone before the server answers
    assert process.stdin is not None
    process.stdin.write(line(INITIALIZE))
    code, stderr = await finish(process)
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert "Error" not in stderr


async def test_each_line_is_parsed_once(skills_root: Path) -> None:
    process = await start(skills_root, serve=COUNTING_SERVE)
    assert process.stdin is not None
    process.stdin.write(line(INITIALIZE) + line(INITIALIZED))
    assert (await answer(process))["id"] == 1
    process.stdin.write(line("{not json") + line({"jsonrpc": "2.0", "id": 10, "method": "ping"}))
    assert (await answer(process))["error"]["code"] == types.PARSE_ERROR
    assert await answer(process) == {"jsonrpc": "2.0", "id": 10, "result": {}}
    code, stderr = await finish(process)
    assert code == 0, stderr
    assert stderr.splitlines()[-1] == "parsed 4 times"  # 4 lines
