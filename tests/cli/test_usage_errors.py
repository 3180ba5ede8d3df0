"""Every failure of a real `skillfs` process: one `error:` line, the documented exit code."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.test_subprocess import ROOT, skillfs
from tests.remote.settings import CREDENTIAL_VARIABLES, without_aws_credentials


def only_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The one line the process printed, on stderr; nothing on stdout."""
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("prompt", "--budget", "-5"),
            "error: argument --budget: must be a whole number of characters, 0 or more, "
            "not '-5' (run 'skillfs prompt --help')",
        ),
        (("prompt", "--budget", "many"), "error: argument --budget: must be a whole number"),
        (
            ("serve", "--http", "--port", "70000"),
            "error: argument --port: must be a port from 0 to 65535, not '70000' "
            "(run 'skillfs serve --help')",
        ),
        (("serve", "--http", "--port", "-5"), "error: argument --port: must be a port from 0"),
        (
            ("serve", "--http", "--host", "999.1.1.1"),
            "error: argument --host: '999.1.1.1' is not a valid IP address",
        ),
        (("serve", "--host", "::1::"), "error: argument --host: '::1::' is not a valid IP"),
        (("serve", "--http", "--path", "mcp"), "error: argument --path: must be a URL path"),
        (("serve", "--interval", "0"), "error: argument --interval: must be a positive number"),
        (("watch", "--interval", "soon"), "error: argument --interval: must be a positive"),
        (("list", "--bogus-flag"), "error: unrecognized arguments: --bogus-flag"),
        (("no-such-command",), "error: argument COMMAND: invalid choice: 'no-such-command'"),
    ],
)
def test_an_invalid_option_value_is_one_usage_line(args: tuple[str, ...], expected: str) -> None:
    result = skillfs(*args)
    assert result.returncode == 2
    assert only_error_line(result).startswith(expected)


def test_serve_on_a_taken_port_names_the_address() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = skillfs("serve", "--http", "--no-watch", "--port", port)
    assert result.returncode == 2
    assert only_error_line(result) == (
        f"error: 127.0.0.1:{port}: cannot serve HTTP there: {os.strerror(errno.EADDRINUSE)}; "
        "pick another --port, or 0 for a free one"
    )


def test_serve_on_an_address_of_another_machine_names_it() -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: bind fails locally, nothing is sent.
    result = skillfs("serve", "--http", "--no-watch", "--host", "192.0.2.1", "--port", "0")
    assert result.returncode == 2
    assert only_error_line(result) == (
        f"error: 192.0.2.1:0: cannot serve HTTP there: {os.strerror(errno.EADDRNOTAVAIL)}"
    )


def _on_compute_engine() -> bool:
    try:
        return Path("/sys/class/dmi/id/product_name").read_text().startswith("Google")
    except OSError:
        return False


@pytest.mark.skipif(_on_compute_engine(), reason="Compute Engine has default credentials")
def test_gs_without_google_credentials_is_refused_after_one_metadata_probe(
    tmp_path: Path, hanging_up_server: tuple[int, list[int]]
) -> None:
    port, connections = hanging_up_server  # a stand-in metadata server that hangs up at once
    metadata = f"127.0.0.1:{port}"
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GOOGLE_", "GCE_", "CLOUDSDK_", "FSSPEC_", "NO_GCE"))
    }
    env |= {
        "HOME": str(tmp_path),  # no gcloud credentials file, no fsspec configuration
        "GCE_METADATA_HOST": metadata,
        "GCE_METADATA_IP": metadata,
        "NO_PROXY": "*",
        "no_proxy": "*",
    }
    result = skillfs("list", "gs://skillfs-no-such-bucket/skills", env=env)
    assert result.returncode == 2
    assert only_error_line(result).startswith(
        "error: gs://skillfs-no-such-bucket/skills: no Google credentials found: "
        "set GOOGLE_APPLICATION_CREDENTIALS"
    )
    # Asked once, not retried with back-off as google-auth does (that took 16-19 s).
    assert len(connections) <= 1


@contextlib.contextmanager
def accepting(on_connection: Callable[[socket.socket], None]) -> Iterator[int]:
    """A loopback server handing each connection to ``on_connection``; its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stopping = threading.Event()

    def accept() -> None:
        while not stopping.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            on_connection(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stopping.set()
        thread.join()
        server.close()


@pytest.fixture
def hanging_up_server() -> Iterator[tuple[int, list[int]]]:
    """A loopback server that closes every connection at once, counting them."""
    connections: list[int] = []

    def hang_up(connection: socket.socket) -> None:
        connections.append(1)
        connection.close()

    with accepting(hang_up) as port:
        yield port, connections


def test_s3_without_aws_credentials_says_so(tmp_path: Path) -> None:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(CREDENTIAL_VARIABLES)
    }
    env |= without_aws_credentials(tmp_path)
    result = skillfs("list", "s3://skillfs-no-such-bucket/skills", env=env)
    assert result.returncode == 2
    line = only_error_line(result)
    assert line.startswith("error: s3://skillfs-no-such-bucket/skills"), line
    assert line.endswith(
        "no AWS credentials found: set AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or FSSPEC_S3_ANON=true for a "
        "public bucket"
    ), line


BLOCKED_CALL_TIMEOUT = 30.0
"""fsspec's FTP client, blocked in a worker thread, gives up on a silent server after 30 s."""


@pytest.fixture
def silent_server() -> Iterator[tuple[int, threading.Event]]:
    """A loopback server that accepts connections and never answers; the event is set on
    the first one."""
    accepted = threading.Event()
    connections: list[socket.socket] = []

    def hold(connection: socket.socket) -> None:
        connections.append(connection)
        accepted.set()

    with accepting(hold) as port:
        yield port, accepted
    for connection in connections:
        connection.close()


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
        # A command that waited for its blocked worker thread (as before: 29 s for ftp://) is
        # not over when this wait ends; one that leaves it behind ends at once.
        stdout, stderr = process.communicate(timeout=BLOCKED_CALL_TIMEOUT / 2)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130
    assert (stdout, stderr) == ("", "")
