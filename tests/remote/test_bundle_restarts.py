"""A new process with a warm catalog cache restarts a zip bundle in one HEAD.

The cache keeps the bundle's fingerprint, central directory and manifest beside the entries
(:mod:`backends._remote.bundles`); a new backend whose HEAD finds the same fingerprint lists
the bundle from them and reads members with ranged requests when they are wanted. A bundle
replaced since, or a saved state that is not one, is read again: never served from the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from backends import BundleBackend, LocalBackend, open_backend
from backends._errors import StorageError
from backends._remote.bundles import SavedBundle
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._bundle.writer import build_bundle
from skills_core._catalog.cache import CatalogCache
from tests.remote.servers import FolderServer, S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.remote.trees import SKILLS, skills_tree
from tests.remote.zips import zip_bytes

Opener = Callable[[], BundleBackend]


def bundle_in(s3_server: S3Server, s3_client: Any, bucket: str, data: bytes) -> Opener:
    s3_client.put_object(Bucket=bucket, Key="skills.zip", Body=data)
    url = f"zip://::s3://{bucket}/skills.zip"

    def backend() -> BundleBackend:
        opened = open_backend(url, retry=FAST_RETRY, **s3_options(s3_server))
        assert isinstance(opened, BundleBackend)
        return opened

    return backend


async def test_a_bundle_restarts_in_one_head(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    backend = bundle_in(s3_server, s3_client, bucket, zip_bytes(skills_tree()))
    cache = CatalogCache(tmp_path)
    s3_server.log.reset()
    await SkillCatalog(backend(), cache=cache).refresh()
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}

    s3_server.log.reset()
    catalog = SkillCatalog(backend(), cache=cache)
    report = await catalog.refresh()
    assert (len(report.added), report.fetched) == (SKILLS, 0)
    assert s3_server.log.kinds() == {"HEAD": 1}
    assert await catalog.read_resource("skill-03", "references/r0.md") == b"# skill-03 0\n"
    assert await catalog.read_resource("skill-04", "references/r1.md") == b"# skill-04 1\n"
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}  # the archive, on the first read


async def cached_bundle(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str, tree: dict[str, bytes]
) -> tuple[Opener, CatalogCache]:
    """The bundle of ``tree`` in the bucket, and a cache one catalog of it filled."""
    backend = bundle_in(s3_server, s3_client, bucket, zip_bytes(tree))
    cache = CatalogCache(tmp_path)
    await SkillCatalog(backend(), cache=cache).refresh()
    return backend, cache


async def test_a_replaced_bundle_is_read_again(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    tree = skills_tree()
    backend, cache = await cached_bundle(tmp_path, s3_server, s3_client, bucket, tree)

    tree["skill-04/SKILL.md"] = skill_md("skill-04", "Changed.")
    bundle_in(s3_server, s3_client, bucket, zip_bytes(tree))
    s3_server.log.reset()
    catalog = SkillCatalog(backend(), cache=cache)
    assert (await catalog.refresh()).fetched == 1
    assert catalog.metadata("skill-04").description == "Changed."
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}

    s3_server.log.reset()
    assert (await SkillCatalog(backend(), cache=cache).refresh()).fetched == 0
    assert s3_server.log.kinds() == {"HEAD": 1}  # the new bundle's state was saved in turn


async def test_a_bundle_replaced_after_a_restart_is_not_read_as_listed(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    tree = skills_tree()
    backend, cache = await cached_bundle(tmp_path, s3_server, s3_client, bucket, tree)
    catalog = SkillCatalog(backend(), cache=cache)
    await catalog.refresh()

    tree["skill-03/references/r0.md"] = b"# replaced\n"
    bundle_in(s3_server, s3_client, bucket, zip_bytes(tree))
    with pytest.raises(StorageError, match="replaced since it was listed"):
        await catalog.read_resource("skill-03", "references/r0.md")
    await catalog.refresh()
    assert await catalog.read_resource("skill-03", "references/r0.md") == b"# replaced\n"


async def test_a_restart_over_http_that_ignores_ranges(tmp_path: Path) -> None:
    (tmp_path / "skills.zip").write_bytes(zip_bytes(skills_tree()))
    server = FolderServer(tmp_path).start()  # the stdlib's: no Range
    try:
        url = f"{server.url}/skills.zip"
        cache = CatalogCache(tmp_path / "cache")
        await SkillCatalog(open_backend(url, retry=FAST_RETRY), cache=cache).refresh()
        server.reset()
        catalog = SkillCatalog(open_backend(url, retry=FAST_RETRY), cache=cache)
        assert (await catalog.refresh()).fetched == 0
        assert server.answers == [("HEAD", 200)]
        assert await catalog.read_resource("skill-03", "references/r0.md") == b"# skill-03 0\n"
        assert server.answers == [("HEAD", 200), ("GET", 200)]
    finally:
        server.stop()


async def test_a_skillfs_bundle_restarts_with_its_manifest(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    source = tmp_path / "source"
    for path, data in skills_tree(4).items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_bytes(data)
    made = await build_bundle(LocalBackend(source))
    backend = bundle_in(s3_server, s3_client, bucket, made.data)
    cache = CatalogCache(tmp_path / "cache")
    await SkillCatalog(backend(), cache=cache).refresh()

    s3_server.log.reset()
    catalog = SkillCatalog(backend(), cache=cache)
    assert (await catalog.refresh()).fetched == 0
    assert s3_server.log.kinds() == {"HEAD": 1}  # the manifest came from the cache too
    assert (await catalog.get("skill-02")).body.startswith("# skill-02")


async def test_a_state_that_is_no_bundle_listing_is_ignored(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    backend = bundle_in(s3_server, s3_client, bucket, zip_bytes(skills_tree()))
    async with backend() as first:
        await first.list()
        state = first.export_state()
    assert state is not None
    saved_bundle = SavedBundle.decode(state)
    assert saved_bundle is not None
    garbage = saved_bundle._replace(directory=bytes(len(saved_bundle.directory))).encode()
    for saved in (b"skillfs-bundle/1\n[1, 2", b"not a state", state[:-200], garbage):
        s3_server.log.reset()
        async with backend() as restarted:
            restarted.import_state(saved)
            assert len(await restarted.list()) == SKILLS
        assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}
