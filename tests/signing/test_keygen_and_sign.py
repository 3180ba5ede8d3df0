"""`skillfs keygen` writes a key pair; `skillfs publish --sign` signs the index it writes."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from backends._index.document import INDEX_PATH, SEQUENCE, parse_index
from tests.cli.conftest import RunCli, cli
from tests.signing.conftest import Keys

__all__ = ["cli"]

SIGNATURE = f"{INDEX_PATH}.sig"


def test_keygen_writes_a_private_key_0600_and_its_public_key_beside_it(
    cli: RunCli, tmp_path: Path
) -> None:
    result = cli("keygen", "-o", tmp_path / "release")
    assert result.code == 0, result.err
    private, public = tmp_path / "release", tmp_path / "release.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert b"BEGIN PRIVATE KEY" in private.read_bytes()
    assert b"BEGIN PUBLIC KEY" in public.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["release", "release.pub"]  # no temporary left
    lines = result.out.splitlines()
    assert lines[0] == f"wrote the private key {private} (mode 0600: keep it secret)"
    assert lines[1].startswith(f"wrote the public key {public} (ed25519:")


def test_keygen_never_overwrites_a_key(cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "release.pub").write_bytes(b"kept")
    result = cli("keygen", "-o", tmp_path / "release")
    assert result.code == 2
    assert result.err == f"error: {tmp_path / 'release.pub'}: already exists: nothing written\n"
    assert sorted(os.listdir(tmp_path)) == ["release.pub"]
    assert (tmp_path / "release.pub").read_bytes() == b"kept"


def test_publish_sign_writes_a_signature_over_the_exact_index_bytes(
    cli: RunCli, keys: Keys, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    result = cli("publish", "-o", out, "--sign", keys.private)
    assert result.code == 0, result.err
    assert ": the index, its signature and 4 artifacts, " in result.out
    index = (out / INDEX_PATH).read_bytes()
    document = json.loads((out / SIGNATURE).read_bytes())
    assert sorted(document) == ["algorithm", "key", "signature"]
    assert document["algorithm"] == "ed25519"
    key = load_pem_public_key(keys.pem)
    key.verify(base64.b64decode(document["signature"]), index)  # type: ignore[union-attr,call-arg]
    assert isinstance(json.loads(index)[SEQUENCE], int)
    assert parse_index(index, location="index").sequence == json.loads(index)[SEQUENCE]


def test_each_signed_publication_has_a_higher_sequence(
    cli: RunCli, keys: Keys, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    sequences = []
    for _ in range(2):
        assert cli("publish", "-o", out, "--sign", keys.private).code == 0
        sequences.append(json.loads((out / INDEX_PATH).read_bytes())[SEQUENCE])
    assert sequences[1] > sequences[0]


def test_publishing_unsigned_removes_the_old_signature(
    cli: RunCli, keys: Keys, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert cli("publish", "-o", out, "--sign", keys.private).code == 0
    result = cli("publish", "-o", out)
    assert result.code == 0, result.err
    assert not (out / SIGNATURE).exists()
    assert SEQUENCE not in json.loads((out / INDEX_PATH).read_bytes())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read the key: No such file or directory"),
        (b"junk", "not an unencrypted PEM private key"),
    ],
)
def test_publish_sign_refuses_a_key_it_cannot_use_and_writes_nothing(
    cli: RunCli, keys: Keys, tmp_path: Path, content: bytes | None, message: str
) -> None:
    key = tmp_path / "bad.key"
    if content is not None:
        key.write_bytes(content)
    result = cli("publish", "-o", tmp_path / "site", "--sign", key)
    assert result.code == 2
    assert result.err == f"error: {key}: {message}\n"
    assert not (tmp_path / "site").exists()


def test_a_public_key_is_not_a_signing_key(cli: RunCli, keys: Keys, tmp_path: Path) -> None:
    result = cli("publish", "-o", tmp_path / "site", "--sign", keys.public)
    assert result.err == f"error: {keys.public}: not an unencrypted PEM private key\n"
