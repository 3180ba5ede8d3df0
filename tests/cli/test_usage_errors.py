"""Every failure of a real `skillfs` process: one `error:` line, the documented exit code."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from tests.cli.test_subprocess import ROOT


@pytest.fixture
def silent_server() -> Iterator[tuple[int, threading.Event]]:
    """A loopback server that accepts connections and never answers; the event is set on
    the first one."""
    accepted = threading.Event()
    connections: list[socket.socket] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stopping = threading.Event()

    def accept() -> None:
        while not stopping.is_set():
            try:
                connections.append(server.accept()[0])
            except TimeoutError:
                continue
            accepted.set()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stopping.set()
    thread.join()
    for connection in connections:
        connection.close()
    server.close()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/skills.zip",  # an async filesystem waiting for an answer
        "ftp://127.0.0.1:{port}/skills",  # a sync one, blocked in a worker thread (was 29 s)
    ],
)
def test_ctrl_c_ends_a_blocked_command_at_once(
    url: str, silent_server: tuple[int, threading.Event]
) -> None:
    port, accepted = silent_server
    process = subprocess.Popen(
        [sys.executable, "-m", "skills_core.cli", "list", url.format(port=port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert accepted.wait(30), "the command never connected"
        process.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        stdout, stderr = process.communicate(timeout=60)
        elapsed = time.monotonic() - interrupted
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130
    assert (stdout, stderr) == ("", "")
    assert elapsed < 3  # the issue asks for 1 s; generous for a loaded machine
