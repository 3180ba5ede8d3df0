"""A replayed older signed index (a rollback) is refused: within a backend's life, and across
processes through the catalog cache folder, over HTTP, a folder, a bucket and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from backends import FsspecBackend, HttpIndexBackend, SignatureError
from backends._index.document import INDEX_PATH, SEQUENCE, render_index
from backends.testing import skill_md
from skills_core import SkillCatalog, TrustPolicy
from skills_core import _codes as codes
from skills_core._catalog.cache import CatalogCache
from skills_core._trust.signing import private_key, signature_file
from tests.cli.conftest import RunCli, cli
from tests.index.sites import Site
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.signing.conftest import Keys, signed, trusting
from tests.signing.test_folders import upload, write_folder

__all__ = ["cli"]

NEWER = {"alpha": {"SKILL.md": skill_md("alpha")}, "gamma": {"SKILL.md": skill_md("gamma")}}


def sequence(files: dict[str, bytes]) -> int:
    return int(json.loads(files[INDEX_PATH])[SEQUENCE])


def rollback_line(location: str, old: dict[str, bytes], new: dict[str, bytes]) -> str:
    return (
        f"{location}: refused: the index's sequence {sequence(old)} is lower than "
        f"{sequence(new)}, already accepted: a replayed older publication (rollback)"
    )


async def test_a_replayed_older_index_is_refused_and_the_newer_one_kept(
    site: Site, keys: Keys
) -> None:
    old, new = await signed(keys), await signed(keys, NEWER)
    assert sequence(new) > sequence(old)
    site.put_all(old)
    catalog = SkillCatalog(
        HttpIndexBackend(site.url, retry=FAST_RETRY), trust=TrustPolicy(keys=[keys.pem])
    )
    assert (await catalog.refresh()).ok
    site.mirror(new)
    assert (await catalog.refresh()).added == ("gamma",)
    site.mirror(old)  # an attacker (or a stale mirror) serves the older, validly signed index
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.SIGNATURE_REFUSED
    with pytest.raises(SignatureError) as raised:
        report.raise_for_failure()
    assert str(raised.value) == rollback_line(f"{site.url}/{INDEX_PATH}", old, new)
    assert [meta.name for meta in catalog.list()] == ["alpha", "gamma"]


async def test_the_cache_folder_remembers_the_sequence_for_the_next_process(
    site: Site, keys: Keys, tmp_path: Path
) -> None:
    old, new = await signed(keys), await signed(keys, NEWER)
    site.put_all(new)
    trust = TrustPolicy(keys=[keys.pem])
    first = SkillCatalog(HttpIndexBackend(site.url), cache=CatalogCache(tmp_path), trust=trust)
    assert len((await first.refresh()).added) == 2
    await first.backend.aclose()
    site.mirror(old)
    fresh = SkillCatalog(HttpIndexBackend(site.url), cache=CatalogCache(tmp_path), trust=trust)
    report = await fresh.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.SIGNATURE_REFUSED
    assert "rollback" in report.failure.message
    forgetful = SkillCatalog(HttpIndexBackend(site.url), trust=trust)  # no cache, no memory
    assert (await forgetful.refresh()).added == ("alpha", "beta")


async def test_a_rollback_in_a_bucket_is_refused(
    s3_server: S3Server, s3_client: Any, bucket: str, keys: Keys, tmp_path: Path
) -> None:
    old, new = await signed(keys), await signed(keys, NEWER)
    url = upload(s3_client, bucket, new)
    options: dict[str, Any] = {"retry": FAST_RETRY, **s3_options(s3_server)}
    memory = CatalogCache(tmp_path)
    assert len(await trusting(FsspecBackend(url, **options), keys, sequences=memory).list()) == 2
    upload(s3_client, bucket, old)
    with pytest.raises(SignatureError) as raised:
        await trusting(FsspecBackend(url, **options), keys, sequences=memory).list()
    assert str(raised.value) == rollback_line(f"{url}/{INDEX_PATH}", old, new)


async def test_a_signed_index_without_a_sequence_is_refused(tmp_path: Path, keys: Keys) -> None:
    index = render_index([])  # signed by the trusted key, but with nothing to order it by
    files = {
        INDEX_PATH: index,
        f"{INDEX_PATH}.sig": signature_file(index, private_key(keys.private.read_bytes())),
    }
    url = write_folder(tmp_path / "site", files)
    with pytest.raises(SignatureError) as raised:
        await trusting(FsspecBackend(url), keys).list()
    assert str(raised.value) == (
        f"{url}/{INDEX_PATH}: refused: the signed index carries no skillfs-sequence"
    )


def test_the_cache_never_lowers_a_remembered_sequence(tmp_path: Path) -> None:
    cache = CatalogCache(tmp_path)
    assert cache.last_sequence("https://a/index.json") is None
    cache.remember_sequence("https://a/index.json", 7)
    cache.remember_sequence("https://a/index.json", 5)
    assert cache.last_sequence("https://a/index.json") == 7
    cache.close()


def test_list_trust_refuses_a_rollback_across_runs(
    cli: RunCli, keys: Keys, tmp_path: Path, cache_dir: Path
) -> None:
    site = tmp_path / "site"
    assert cli("publish", "-o", site, "--sign", keys.private).code == 0
    old = {path: (site / path).read_bytes() for path in (INDEX_PATH, f"{INDEX_PATH}.sig")}
    assert cli("publish", "-o", site, "--sign", keys.private).code == 0
    new = {INDEX_PATH: (site / INDEX_PATH).read_bytes()}
    assert cli("list", site, "--trust", keys.public).code == 0
    write_folder(site, old)
    result = cli("list", site, "--trust", keys.public)
    assert result.code == 2
    assert result.out == ""
    assert result.err == "error: " + rollback_line(f"{site.as_uri()}/{INDEX_PATH}", old, new) + "\n"
