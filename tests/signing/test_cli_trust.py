"""`skillfs list --trust KEY`: only a published index signed by a trusted key is listed."""

from __future__ import annotations

from pathlib import Path

from backends._index.document import INDEX_PATH
from skills_core._trust.signing import key_id, public_key
from tests.cli.conftest import RunCli, cli
from tests.signing.conftest import Keys

__all__ = ["cli"]


def names(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines()[1:]]


def test_a_signed_publication_is_listed(
    cli: RunCli, keys: Keys, tmp_path: Path, cache_dir: Path
) -> None:
    site = tmp_path / "site"
    assert cli("publish", "-o", site, "--sign", keys.private).code == 0
    result = cli("list", site, "--trust", keys.public)
    assert result.code == 0, result.err
    assert names(result.out) == ["api-docs", "csv-insights", "git-commit-messages", "release-notes"]


def test_an_unsigned_publication_is_one_error_line_and_nothing_listed(
    cli: RunCli, keys: Keys, tmp_path: Path, cache_dir: Path
) -> None:
    site = tmp_path / "site"
    assert cli("publish", "-o", site).code == 0
    result = cli("list", site, "--trust", keys.public)
    index = f"{site.as_uri()}/{INDEX_PATH}"
    assert (result.code, result.out) == (2, "")
    assert result.err == f"error: {index}: refused: the index is not signed (no {index}.sig)\n"


def test_two_trusted_keys_accept_either_and_another_is_refused(
    cli: RunCli, keys: Keys, other_keys: Keys, tmp_path: Path, cache_dir: Path
) -> None:
    site = tmp_path / "site"
    assert cli("publish", "-o", site, "--sign", other_keys.private).code == 0
    assert cli("list", site, "--trust", keys.public, "--trust", other_keys.public).code == 0
    result = cli("list", site, "--trust", keys.public)
    assert result.code == 2
    signer, trusted = key_id(public_key(other_keys.pem)), key_id(public_key(keys.pem))
    assert result.err == (
        f"error: {site.as_uri()}/{INDEX_PATH}: refused: the index is signed by {signer}, "
        f"which is not trusted (trusted: {trusted})\n"
    )


def test_trust_refuses_a_source_that_is_no_published_index(
    cli: RunCli, keys: Keys, tmp_path: Path, cache_dir: Path
) -> None:
    result = cli("list", "memory:", "--trust", keys.public)
    assert result.code == 2
    assert result.err == (
        "error: memory:: --trust verifies a published index (an http(s) site, or a folder or "
        "bucket holding one): this source is not one\n"
    )


def test_a_bad_key_file_is_one_line_naming_it(
    cli: RunCli, keys: Keys, tmp_path: Path, cache_dir: Path
) -> None:
    site = tmp_path / "site"
    assert cli("publish", "-o", site, "--sign", keys.private).code == 0
    garbage = tmp_path / "garbage.pub"
    garbage.write_text("not a key\n")
    result = cli("list", site, "--trust", garbage)
    assert (result.code, result.out) == (2, "")
    assert result.err == f"error: {garbage}: not a PEM public key\n"
    result = cli("list", site, "--trust", keys.private)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"error: {keys.private}: a private key, not a public one: trust its .pub file "
        "and keep this one secret\n"
    )
