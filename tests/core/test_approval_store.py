"""The approvals file is never trusted blindly: foreign, others-writable or corrupt is ignored."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from skills_core._trust.approvals import FILE_NAME, ApprovalStore

DIGEST = "sha256:" + "ab" * 32


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    store = ApprovalStore(tmp_path / "cache")
    store.approve(DIGEST, name="pdf", source="./skills", scripts=True)
    return store


def reopened(store: ApprovalStore) -> ApprovalStore:
    return ApprovalStore(store.folder)


def test_approvals_persist_and_add_up(store: ApprovalStore) -> None:
    store.approve(DIGEST, name="pdf", source="./skills", tools=True)
    found = reopened(store).granted(DIGEST)
    assert found is not None
    assert (found.scripts, found.tools) == (True, True)
    assert (store.path.stat().st_mode & 0o777, store.folder.stat().st_mode & 0o777) == (
        0o600,
        0o700,
    )


@pytest.mark.parametrize(
    "damage",
    [
        "not json",
        '{"schema": 3, "approvals": {}}',
        '{"schema": 2, "approvals": {"x": {}}}',
        "[]",
        '{"schema": 2, "approvals": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=["text", "schema", "entry", "list", "deep"],
)
def test_a_corrupt_file_is_ignored_and_logged_once(
    store: ApprovalStore, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    store.path.write_text(damage)
    with caplog.at_level(logging.WARNING, "skillfs"):
        again = reopened(store)
        again.reload()
    assert again.granted(DIGEST) is None
    [record] = caplog.records
    assert record.getMessage().startswith(f"ignored the approvals file {store.path}: ")


def test_approvals_of_the_ambiguous_digests_are_never_honoured(
    store: ApprovalStore, caplog: pytest.LogCaptureFixture
) -> None:
    """Schema 1 keyed approvals by ``sha256sum``-style lines, which a file name could forge."""
    store.path.write_text(store.path.read_text().replace('"schema": 2', '"schema": 1'))
    with caplog.at_level(logging.WARNING, "skillfs"):
        assert reopened(store).granted(DIGEST) is None
    assert caplog.messages == [
        f"ignored the approvals file {store.path}: not an approvals file "
        "(schema 1, keyed by an ambiguous digest: approve the skills again)"
    ]


def test_a_file_others_can_write_is_ignored(store: ApprovalStore) -> None:
    store.path.chmod(0o622)
    assert reopened(store).granted(DIGEST) is None


def test_a_folder_others_can_write_is_ignored(store: ApprovalStore) -> None:
    store.folder.chmod(0o777)
    assert reopened(store).granted(DIGEST) is None
    with pytest.raises(OSError, match="writable by other users"):
        store.approve(DIGEST, name="pdf", source="./skills", tools=True)


def test_a_file_of_another_user_is_ignored_then_replaced(store: ApprovalStore) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(store.path, 4242, 4242)
    foreign = reopened(store)
    assert foreign.granted(DIGEST) is None
    foreign.approve(DIGEST, name="pdf", source="./skills", tools=True)
    assert store.path.stat().st_uid == 0
    found = reopened(store).granted(DIGEST)
    assert found is not None
    assert (found.scripts, found.tools) == (False, True)


def test_a_symlink_is_not_followed(store: ApprovalStore, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    store.path.rename(target)
    store.path.symlink_to(target)
    assert reopened(store).granted(DIGEST) is None
    assert store.path.name == FILE_NAME
