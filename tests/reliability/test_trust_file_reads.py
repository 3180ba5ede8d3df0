"""The user's trust files are read bounded and never wait: lock, approvals.json, key files.

A FIFO, a device (``/dev/zero``) or a directory is refused unread, and a file over its ceiling
(``backends._limits``) is refused from its size, each with one line naming the file and why.
The commands run in a process of their own, under a memory ceiling and a timeout (60 s,
generous: a refusal takes well under one), so a regression (a read that blocks on a FIFO or
never ends on ``/dev/zero``) fails instead of hanging or filling the machine's memory.
"""

from __future__ import annotations

import logging
import os
import resource
import subprocess
from pathlib import Path

import pytest

from backends._limits import MAX_APPROVALS_FILE_BYTES, MAX_KEY_FILE_BYTES, MAX_LOCK_FILE_BYTES
from skills_core._trust.approvals import FILE_NAME, ApprovalStore
from skills_core.cli._source import EXAMPLES
from tests.cli.test_subprocess import skillfs as run_skillfs

MEMORY_CEILING = 1 << 30


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING, MEMORY_CEILING))


def skillfs(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SKILLFS_CACHE_DIR": str(tmp_path / "cache")}
    return run_skillfs(*args, env=env, preexec_fn=_bounded)


def fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


def sparse(tmp_path: Path, name: str, size: int) -> Path:
    path = tmp_path / name
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


LOCK_CASES = {
    "fifo": (lambda tmp: fifo(tmp, "skills.lock"), "the lock is a named pipe (FIFO)"),
    "device": (lambda tmp: Path("/dev/zero"), "the lock is a character device"),
    "directory": (lambda tmp: tmp, "the lock is a directory"),
}


@pytest.mark.parametrize("case", LOCK_CASES)
def test_a_lock_that_is_no_file_is_refused_unread(tmp_path: Path, case: str) -> None:
    make, kind = LOCK_CASES[case]
    lock = make(tmp_path)
    for argv in (("list", EXAMPLES, "--lock", lock), ("lock", "--check", "-o", lock)):
        result = skillfs(tmp_path, *argv)
        assert result.returncode == 2
        assert result.stderr == f"error: {lock}: {kind}, not a regular file; not read\n"
        assert result.stdout == ""


def test_a_lock_over_its_ceiling_is_refused_from_its_size(tmp_path: Path) -> None:
    size = MAX_LOCK_FILE_BYTES + 1
    lock = sparse(tmp_path, "skills.lock", size)
    result = skillfs(tmp_path, "list", EXAMPLES, "--lock", lock)
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {lock}: the lock is {size} bytes, over the {MAX_LOCK_FILE_BYTES}-byte limit\n"
    )


def published(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    assert skillfs(tmp_path, "publish", EXAMPLES, "-o", site).returncode == 0
    return site


def test_trust_keys_that_are_no_file_or_too_large_are_refused(tmp_path: Path) -> None:
    site = published(tmp_path)
    big = sparse(tmp_path, "big.pub", MAX_KEY_FILE_BYTES + 1)
    cases = {
        fifo(tmp_path, "pipe.pub"): "the key is a named pipe (FIFO), not a regular file; not read",
        Path("/dev/zero"): "the key is a character device, not a regular file; not read",
        big: f"the key is {MAX_KEY_FILE_BYTES + 1} bytes, over the {MAX_KEY_FILE_BYTES}-byte limit",
    }
    for key, line in cases.items():
        result = skillfs(tmp_path, "list", site, "--trust", key)
        assert (result.returncode, result.stdout) == (2, ""), key
        assert result.stderr == f"error: {key}: {line}\n"
        signed = skillfs(tmp_path, "publish", EXAMPLES, "-o", tmp_path / "out", "--sign", key)
        assert (signed.returncode, signed.stderr) == (2, f"error: {key}: {line}\n")


def test_an_approvals_file_over_its_ceiling_is_ignored_unread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    size = MAX_APPROVALS_FILE_BYTES + 1
    path = sparse(folder, FILE_NAME, size)
    path.chmod(0o600)
    with caplog.at_level(logging.WARNING, "skillfs"):
        store = ApprovalStore(folder)
    assert store.approvals() == []
    [record] = caplog.records
    assert record.getMessage() == (
        f"ignored the approvals file {path}: {FILE_NAME} is {size} bytes, "
        f"over the {MAX_APPROVALS_FILE_BYTES}-byte limit"
    )
