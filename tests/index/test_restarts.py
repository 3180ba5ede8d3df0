"""A new process with a warm catalog cache restarts a published index in one conditional request.

A new catalog with a new backend on the same cache stands for a new process (the cache keeps
the index's bytes and validator beside the entries, :class:`backends.capabilities.SourceState`).
Counted by the servers: over HTTP one GET answered 304; in a bucket one HEAD, and no LIST
looking for the index. A changed or removed index is read again, never served from the cache.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

from backends import FsspecBackend
from backends._index.document import INDEX_PATH
from backends.capabilities import export_state, import_state
from backends.testing import skill_md
from skills_core import SkillCatalog, publish
from skills_core._catalog.cache import CatalogCache
from tests.backends.harnesses import LocalHarness
from tests.index.harnesses import BucketHarness, PublishedHarness, SiteHarness
from tests.index.sites import FOLDER, Site
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.remote.trees import SKILLS, skills_tree


async def restart(harness: PublishedHarness, cache: CatalogCache) -> SkillCatalog:
    """A new catalog on a new backend, refreshed once: every skill, nothing read."""
    catalog = SkillCatalog(harness.backend(), cache=cache)
    report = await catalog.refresh()
    assert len(report.added) == SKILLS
    assert report.fetched == 0
    return catalog


async def test_a_site_restarts_in_one_get_answered_not_modified(tmp_path: Path, site: Site) -> None:
    harness = SiteHarness(tmp_path / "source", site)
    await harness.make_backend(skills_tree())
    cache = CatalogCache(tmp_path / "cache")
    await SkillCatalog(harness.backend(), cache=cache).refresh()

    site.log.reset()
    catalog = await restart(harness, cache)
    assert site.log.kinds() == {"GET": 1}
    etag = f'"{hashlib.md5(site.server.files[site.root + "/" + INDEX_PATH]).hexdigest()}"'
    assert site.conditional()[-1] == etag  # answered 304
    assert (await catalog.get("skill-03")).body.startswith("# skill-03")
    assert site.log.kinds() == {"GET": 2}
    assert site.log.count("GET", f"{FOLDER}/skill-03-") == 1  # its files, from its archive

    await harness.write("skill-04/SKILL.md", skill_md("skill-04", "Changed."))
    site.log.reset()
    changed = SkillCatalog(harness.backend(), cache=cache)
    assert (await changed.refresh()).fetched == 1
    assert changed.metadata("skill-04").description == "Changed."
    assert site.log.kinds() == {"GET": 1}  # answered 200, with the new index
    assert site.conditional()[-1] == etag


async def test_a_published_bucket_restarts_in_one_head(
    tmp_path: Path, s3_server: S3Server, bucket: str
) -> None:
    harness = BucketHarness(tmp_path / "source", s3_server, bucket)
    await harness.make_backend(skills_tree())
    cache = CatalogCache(tmp_path / "cache")
    s3_server.log.reset()
    await SkillCatalog(harness.backend(), cache=cache).refresh()
    assert s3_server.log.kinds() == {"LIST": 1, "GET": 1}

    s3_server.log.reset()
    catalog = await restart(harness, cache)
    assert s3_server.log.kinds() == {"HEAD": 1}
    assert await catalog.read_resource("skill-03", "references/r0.md") == b"# skill-03 0\n"
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}  # the skill's archive, on demand

    await harness.write("skill-04/SKILL.md", skill_md("skill-04", "Changed."))
    s3_server.log.reset()
    changed = SkillCatalog(harness.backend(), cache=cache)
    assert (await changed.refresh()).fetched == 1
    assert changed.metadata("skill-04").description == "Changed."
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}

    s3_server.log.reset()
    await restart(harness, cache)  # the changed index's state was saved in turn
    assert s3_server.log.kinds() == {"HEAD": 1}


async def test_a_restart_after_the_index_was_removed_reads_the_folder(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = BucketHarness(tmp_path / "source", s3_server, bucket)
    await harness.make_backend(skills_tree(2))
    S3Harness(s3_server, s3_client, bucket, prefix="site").put_tree(
        {"local-only/SKILL.md": skill_md("local-only")}
    )
    cache = CatalogCache(tmp_path / "cache")
    await SkillCatalog(harness.backend(), cache=cache).refresh()

    s3_client.delete_object(Bucket=bucket, Key=f"site/{INDEX_PATH}")
    catalog = SkillCatalog(harness.backend(), cache=cache)
    report = await catalog.refresh()
    assert report.added == ("local-only",)
    assert [meta.name for meta in catalog.list()] == ["local-only"]


async def test_a_damaged_index_state_is_read_again(tmp_path: Path, site: Site) -> None:
    harness = SiteHarness(tmp_path / "source", site)
    await harness.make_backend(skills_tree())
    first = harness.backend()
    await first.list()
    state = export_state(first)
    assert state is not None
    validator = state.split(b"\n")[1]
    for damaged in (b"skillfs-index/1\n" + validator + b"\n{not json", b"skillfs-index/2\n"):
        backend = harness.backend()
        import_state(backend, damaged)
        site.log.reset()
        assert len(await backend.list()) == SKILLS
        assert site.conditional()[-1] is None  # the index, read whole


async def test_a_restart_that_only_learns_a_new_validator_saves_it(tmp_path: Path) -> None:
    # On a local store the first read's validator (an S3-style MD5 ETag) is not the store's
    # fingerprint: the restart reads the unchanged index again, and saves its new validator
    # alone (no entry changed), so the next restart's first request is answered unchanged.
    source, out = tmp_path / "source", tmp_path / "published"
    await publish(await LocalHarness(source).make_backend(skills_tree()), out)
    cache = CatalogCache(tmp_path / "cache")
    url = out.as_uri()
    await SkillCatalog(FsspecBackend(url), cache=cache).refresh()

    def saved_state() -> bytes | None:
        (row,) = cache.catalogs()
        stored = cache.stored(row.source, row.settings)
        assert stored is not None
        return stored.state

    first = await asyncio.to_thread(saved_state)
    backend = FsspecBackend(url)
    catalog = SkillCatalog(backend, cache=cache)
    assert (await catalog.refresh()).fetched == 0
    assert export_state(backend) != first  # the store's own validator, learnt
    assert await asyncio.to_thread(saved_state) == export_state(backend)
