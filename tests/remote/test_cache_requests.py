"""What a new process's first refresh costs with a warm catalog cache, counted at the servers.

A new catalog with a new backend on a warm cache stands for a new process. On an unchanged
bucket it sends what a no-change refresh sends: the listing, and no GET.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from backends import FsspecBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._catalog.cache import CatalogCache
from tests.remote.harnesses import S3Harness
from tests.remote.servers import GcsServer, S3Server
from tests.remote.settings import gcs_options
from tests.remote.trees import skills_tree

RESTART_SKILLS = 1000


@pytest.mark.timeout(600)
async def test_s3_restart_of_1000_skills_costs_the_listing_only(
    s3_server: S3Server, s3_client: Any, bucket: str, tmp_path: Path
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    tree = skills_tree(RESTART_SKILLS)
    harness.put_tree(tree)
    pages = math.ceil(len(tree) / 1000)
    cache = CatalogCache(tmp_path)
    log = s3_server.log

    log.reset()
    first = await SkillCatalog(harness.backend(), cache=cache).refresh()
    assert len(first.added) == RESTART_SKILLS
    assert log.kinds() == {"LIST": pages, "GET": RESTART_SKILLS}

    log.reset()
    restarted = SkillCatalog(harness.backend(), cache=cache)
    report = await restarted.refresh()
    assert len(report.added) == RESTART_SKILLS
    assert report.fetched == 0
    assert log.kinds() == {"LIST": pages}

    harness.put_tree({"skill-07/SKILL.md": skill_md("skill-07", "Changed.")})
    log.reset()
    again = SkillCatalog(harness.backend(), cache=cache)
    assert (await again.refresh()).fetched == 1
    assert again.metadata("skill-07").description == "Changed."
    assert log.kinds() == {"LIST": pages, "GET": 1}

    log.reset()
    skill = await restarted.get("skill-03")  # a body, on demand: one GET
    assert skill.body
    assert log.kinds() == {"GET": 1}


async def test_gcs_restart_of_1000_skills_costs_the_listing_only(
    gcs_server: GcsServer,
    gcs_fs: Any,
    gcs_bucket: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tree = skills_tree(RESTART_SKILLS)
    with monkeypatch.context() as seeding:
        # the emulator rewrites its whole object table after each upload (quadratic in
        # objects); kept in memory here, that table need not be written while seeding
        seeding.setattr(gcs_server.storage, "_write_config_to_file", lambda: None)
        gcs_fs.pipe({f"{gcs_bucket}/skills/{path}": data for path, data in tree.items()})
    cache = CatalogCache(tmp_path)

    def catalog() -> SkillCatalog:
        backend = FsspecBackend(f"gs://{gcs_bucket}/skills", **gcs_options(gcs_server))
        return SkillCatalog(backend, cache=cache)

    listing = f"/b/{gcs_bucket}/o?"
    gcs_server.log.reset()
    assert len((await catalog().refresh()).added) == RESTART_SKILLS
    pages = gcs_server.log.count("GET", contains=listing)  # the emulator answers in one page
    assert gcs_server.log.count() == pages + RESTART_SKILLS  # the listing, each SKILL.md once
    gcs_server.log.reset()
    report = await catalog().refresh()
    assert len(report.added) == RESTART_SKILLS
    assert report.fetched == 0
    assert gcs_server.log.count() == gcs_server.log.count("GET", contains=listing) == pages
