"""A catalog trusting keys verifies a published folder or bucket (moto S3) FsspecBackend reads."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest

from backends import BundleBackend, FsspecBackend, SignatureError, UnsupportedSourceError
from backends._index.document import INDEX_PATH
from skills_core import SkillCatalog, TrustPolicy
from skills_core import _codes as codes
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.signing.conftest import Keys, signed, trusting

SIGNATURE = f"{INDEX_PATH}.sig"


def write_folder(folder: Path, files: dict[str, bytes]) -> str:
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    return folder.as_uri()


def upload(s3_client: Any, bucket: str, files: dict[str, bytes]) -> str:
    for path, data in files.items():
        s3_client.put_object(Bucket=bucket, Key=f"site/{path}", Body=data)
    return f"s3://{bucket}/site"


async def test_a_signed_folder_is_served(tmp_path: Path, keys: Keys) -> None:
    url = write_folder(tmp_path / "site", await signed(keys))
    catalog = SkillCatalog(FsspecBackend(url), trust=TrustPolicy(keys=[keys.pem]))
    assert (await catalog.refresh()).ok
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]
    assert await catalog.read_resource("alpha", "references/guide.md") == b"# Guide\n"


async def test_a_signed_bucket_is_served_in_one_more_get(
    s3_server: S3Server, s3_client: Any, bucket: str, keys: Keys
) -> None:
    url = upload(s3_client, bucket, await signed(keys))
    s3_server.log.reset()
    backend = FsspecBackend(url, retry=FAST_RETRY, **s3_options(s3_server))
    catalog = SkillCatalog(backend, trust=TrustPolicy(keys=[keys.pem]))
    assert (await catalog.refresh()).ok
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]
    assert s3_server.log.kinds() == {"GET": 2}  # the index and its signature: no listing


async def test_an_unsigned_bucket_is_refused(
    s3_server: S3Server, s3_client: Any, bucket: str, keys: Keys
) -> None:
    url = upload(s3_client, bucket, await signed(None))
    backend = FsspecBackend(url, retry=FAST_RETRY, **s3_options(s3_server))
    catalog = SkillCatalog(backend, trust=TrustPolicy(keys=[keys.pem]))
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.SIGNATURE_REFUSED
    assert not catalog.list()
    index = f"{url}/{INDEX_PATH}"
    assert report.failure.message.endswith(f"refused: the index is not signed (no {index}.sig)")


async def test_a_bucket_signed_by_another_key_is_refused(
    s3_server: S3Server, s3_client: Any, bucket: str, keys: Keys, other_keys: Keys
) -> None:
    url = upload(s3_client, bucket, await signed(other_keys))
    backend = trusting(FsspecBackend(url, retry=FAST_RETRY, **s3_options(s3_server)), keys)
    with pytest.raises(SignatureError, match="which is not trusted"):
        await backend.list()


async def test_a_huge_signature_in_a_bucket_is_refused(
    s3_server: S3Server, s3_client: Any, bucket: str, keys: Keys
) -> None:
    files = await signed(keys)
    url = upload(s3_client, bucket, {**files, SIGNATURE: files[SIGNATURE] + b" " * 5_000_000})
    backend = trusting(FsspecBackend(url, retry=FAST_RETRY, **s3_options(s3_server)), keys)
    with pytest.raises(SignatureError) as raised:
        await backend.list()
    assert str(raised.value) == (
        f"{url}/{INDEX_PATH}: refused: the signature file is larger than 4096 bytes"
    )
    assert s3_server.log.count("GET", SIGNATURE) == 1  # one ranged read: 4097 bytes at most


async def test_a_folder_without_an_index_is_refused_not_listed(tmp_path: Path, keys: Keys) -> None:
    folder = tmp_path / "skills" / "alpha"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: alpha\ndescription: A.\n---\n")
    url = (tmp_path / "skills").as_uri()
    with pytest.raises(SignatureError) as raised:
        await trusting(FsspecBackend(url), keys).list()
    assert str(raised.value) == (
        f"{url}: refused: trusted keys are set, and the folder holds no published index "
        f"({INDEX_PATH})"
    )


def test_trusted_keys_refuse_a_bundle(tmp_path: Path, keys: Keys) -> None:
    with pytest.raises(UnsupportedSourceError, match="this source is not one"):
        SkillCatalog(
            BundleBackend((tmp_path / "skills.zip").as_uri()), trust=TrustPolicy(keys=[keys.pem])
        )


def test_a_trusted_key_must_be_an_ed25519_public_key(tmp_path: Path, keys: Keys) -> None:
    with pytest.raises(SignatureError, match="a private key, not a public one"):
        SkillCatalog(
            FsspecBackend(tmp_path.as_uri()), trust=TrustPolicy(keys=[keys.private.read_bytes()])
        )


def release_readers(fifo: Path) -> None:
    """Let any thread stuck opening ``fifo`` for reading go (it had no writer)."""
    with contextlib.suppress(OSError):  # no reader waits
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize("kind", ["fifo", "directory"])
async def test_a_signature_that_is_no_file_is_refused_at_once(
    tmp_path: Path, keys: Keys, kind: str
) -> None:
    """A FIFO planted in the folder never holds a worker thread: every refresh answers."""
    url = write_folder(tmp_path / "site", await signed(keys))
    path = tmp_path / "site" / SIGNATURE
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    catalog = SkillCatalog(FsspecBackend(url, timeout=2), trust=TrustPolicy(keys=[keys.pem]))
    what = "a named pipe (FIFO)" if kind == "fifo" else "a directory"
    try:
        for _ in range(8):  # more than the default executor's threads on two cores
            report = await catalog.refresh()
            assert report.failure is not None
            assert report.failure.message.endswith(
                f"{url}/{SIGNATURE}: {what}, not a regular file; not read"
            )
    finally:
        release_readers(path)
    assert len(catalog) == 0
