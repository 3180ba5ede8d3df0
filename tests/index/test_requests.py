"""What a refresh of a published index costs, counted by the servers themselves.

Over HTTP: a cold catalog is one GET of the index, a no-change refresh one GET answered 304, a
changed skill one GET of the index; an archive is fetched once, when a skill's files are first
needed. In a bucket: one LIST (which finds the index) and one GET cold, one HEAD when nothing
changed, a HEAD and a GET when something did -- whatever the number of skills.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from backends import HttpIndexBackend
from backends._index.document import INDEX_PATH
from backends.testing import skill_md
from skills_core import SkillCatalog
from tests.index.harnesses import BucketHarness, PublishedHarness, SiteHarness
from tests.index.sites import FOLDER, Site, entry, index, tar_gz
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY
from tests.remote.trees import SKILLS, skills_tree
from tests.remote.zips import zip_bytes


async def published(harness: PublishedHarness) -> SkillCatalog:
    await harness.make_backend(skills_tree())
    return SkillCatalog(harness.backend())


async def change_one(harness: PublishedHarness) -> None:
    await harness.write("skill-04/SKILL.md", skill_md("skill-04", "Changed."))


async def test_a_published_site_costs_one_request_per_refresh(tmp_path: Path, site: Site) -> None:
    harness = SiteHarness(tmp_path / "source", site)
    catalog = await published(harness)
    site.log.reset()

    cold = await catalog.refresh()
    assert len(cold.added) == SKILLS
    assert site.log.kinds() == {"GET": 1}
    assert site.index_requests() == 1

    site.log.reset()
    unchanged = await catalog.refresh()
    assert not unchanged.has_changes
    assert site.log.kinds() == {"GET": 1}
    etag = f'"{hashlib.md5(site.server.files[site.root + "/" + INDEX_PATH]).hexdigest()}"'
    assert site.conditional()[-1] == etag  # the server answers 304 to exactly this

    await change_one(harness)
    site.log.reset()
    report = await catalog.refresh()
    assert report.changed == ("skill-04",)
    assert site.log.kinds() == {"GET": 1}


async def test_files_are_fetched_once_when_first_needed(tmp_path: Path, site: Site) -> None:
    catalog = await published(SiteHarness(tmp_path / "source", site))
    await catalog.refresh()
    site.log.reset()

    skill = await catalog.get("skill-03")
    assert [file.path for file in skill.files] == [
        "SKILL.md",
        "references/r0.md",
        "references/r1.md",
    ]
    assert await catalog.read_resource("skill-03", "references/r1.md") == b"# skill-03 1\n"
    assert await catalog.read_resource("skill-03", "references/r0.md") == b"# skill-03 0\n"
    assert site.log.kinds() == {"GET": 1}
    assert site.log.count("GET", f"{FOLDER}/skill-03-") == 1


async def test_an_index_without_skill_md_costs_one_get_per_changed_skill(site: Site) -> None:
    tree = skills_tree(3)
    artifacts = {
        "skill-00": ("archive", "skill-00.zip", zip_bytes(_skill(tree, "skill-00"))),
        "skill-01": ("archive", "skill-01.tar.gz", tar_gz(_skill(tree, "skill-01"))),
        "skill-02": ("skill-md", "skill-02/SKILL.md", tree["skill-02/SKILL.md"]),
    }
    _serve(site, artifacts)
    catalog = SkillCatalog(HttpIndexBackend(site.url, retry=FAST_RETRY))

    assert len((await catalog.refresh()).added) == 3
    assert site.log.kinds() == {"GET": 4}

    site.log.reset()
    assert not (await catalog.refresh()).has_changes
    assert site.log.kinds() == {"GET": 1}

    changed = {**_skill(tree, "skill-01"), "SKILL.md": skill_md("skill-01", "Changed.")}
    artifacts["skill-01"] = ("archive", "skill-01.tar.gz", tar_gz(changed))
    _serve(site, artifacts)
    site.log.reset()
    assert (await catalog.refresh()).changed == ("skill-01",)
    assert site.log.kinds() == {"GET": 2}
    assert site.log.count("GET", "skill-01.tar.gz") == 1


async def test_a_published_bucket_costs_one_request_per_refresh(
    tmp_path: Path, s3_server: S3Server, bucket: str
) -> None:
    harness = BucketHarness(tmp_path / "source", s3_server, bucket)
    catalog = await published(harness)
    log = s3_server.log
    log.reset()

    cold = await catalog.refresh()
    assert len(cold.added) == SKILLS
    # The folder's first listing finds the index (and spares plain folders a check).
    assert log.kinds() == {"LIST": 1, "GET": 1}

    for _ in range(2):  # S3's ETag is the MD5 of what was read: no second GET
        log.reset()
        assert not (await catalog.refresh()).has_changes
        assert log.kinds() == {"HEAD": 1}

    await change_one(harness)
    log.reset()
    report = await catalog.refresh()
    assert report.changed == ("skill-04",)
    assert log.kinds() == {"HEAD": 1, "GET": 1}

    log.reset()
    assert await catalog.read_resource("skill-04", "references/r0.md") == b"# skill-04 0\n"
    assert (await catalog.get("skill-04")).files
    assert log.kinds() == {"GET": 1}
    assert log.count("GET", f"site{FOLDER}/skill-04-") == 1


def _skill(tree: dict[str, bytes], name: str) -> dict[str, bytes]:
    return {path[len(name) + 1 :]: data for path, data in tree.items() if path.startswith(name)}


def _serve(site: Site, artifacts: dict[str, tuple[str, str, bytes]]) -> None:
    entries = []
    for name, (kind, url, data) in artifacts.items():
        site.put(f"{FOLDER}/{url}", data)
        entries.append(entry(name, kind, url, data))
    site.put(INDEX_PATH, index(*entries))
