"""What a refresh costs, counted by the servers themselves.

S3 with N skills and K keys: a cold refresh is ceil(K/page) LIST + N GET (the listing also
tells whether the folder holds a published index: no request to check); a no-change refresh is
ceil(K/page) LIST and nothing else, and changing c SKILL.md files adds c GETs. Never a HEAD.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

import pytest

from backends import BundleBackend, FsspecBackend, LimitExceededError, Limits
from backends.testing import skill_md
from skills_core import SkillCatalog
from tests.remote.harnesses import S3Harness
from tests.remote.servers import FakeGithub, GcsServer, S3Server, StaticServer
from tests.remote.settings import FAST_RETRY, gcs_options, s3_options
from tests.remote.trees import SKILLS, skills_tree
from tests.remote.zips import zip_bytes


@pytest.mark.parametrize("page_size", [1000, 7])
async def test_refresh_costs_one_listing_and_a_get_per_changed_skill(
    s3_server: S3Server,
    s3_client: Any,
    bucket: str,
    monkeypatch: pytest.MonkeyPatch,
    page_size: int,
) -> None:
    monkeypatch.setenv("MOTO_S3_DEFAULT_MAX_KEYS", str(page_size))
    harness = S3Harness(s3_server, s3_client, bucket)
    tree = skills_tree()
    harness.put_tree(tree)
    pages = math.ceil(len(tree) / page_size)
    log = s3_server.log
    log.reset()
    catalog = SkillCatalog(harness.backend())

    cold = await catalog.refresh()
    assert len(cold.added) == SKILLS
    assert log.kinds() == {"LIST": pages, "GET": SKILLS}
    assert log.count("GET", ".well-known/agent-skills/index.json") == 0

    log.reset()
    unchanged = await catalog.refresh()
    assert not unchanged.has_changes
    assert unchanged.fetched == 0
    assert log.kinds() == {"LIST": pages}

    changed = {f"skill-{index:02d}" for index in (1, 4, 7)}
    harness.put_tree({f"{name}/SKILL.md": skill_md(name, "Changed.") for name in changed})
    log.reset()
    report = await catalog.refresh()
    assert set(report.changed) == changed
    assert log.kinds() == {"LIST": pages, "GET": len(changed)}


async def test_resources_are_read_on_demand_without_head_or_listing(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    harness.put_tree(skills_tree(2))
    catalog = SkillCatalog(harness.backend())
    await catalog.refresh()
    s3_server.log.reset()

    skill = await catalog.get("skill-01")
    assert [entry.path for entry in skill.files] == [
        "SKILL.md",
        "references/r0.md",
        "references/r1.md",
    ]
    assert s3_server.log.kinds() == {}
    data = await catalog.read_resource("skill-01", "references/r1.md")
    assert data == b"# skill-01 1\n"
    assert s3_server.log.kinds() == {"GET": 1}


async def test_bundle_in_a_bucket_costs_a_head_and_downloads_only_when_changed(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    key = "bundles/skills.zip"
    s3_client.put_object(Bucket=bucket, Key=key, Body=zip_bytes(skills_tree()))
    log = s3_server.log
    log.reset()
    backend = BundleBackend(f"s3://{bucket}/{key}", retry=FAST_RETRY, **s3_options(s3_server))
    catalog = SkillCatalog(backend)

    cold = await catalog.refresh()
    assert len(cold.added) == SKILLS
    assert log.kinds() == {"HEAD": 1, "GET": 1}

    log.reset()
    assert not (await catalog.refresh()).has_changes
    assert await catalog.read_resource("skill-03", "references/r0.md") == b"# skill-03 0\n"
    assert (await catalog.get("skill-03")).files
    assert log.kinds() == {"HEAD": 1}

    s3_client.put_object(Bucket=bucket, Key=key, Body=zip_bytes(skills_tree(description="New.")))
    log.reset()
    report = await catalog.refresh()
    assert len(report.changed) == SKILLS
    assert log.kinds() == {"HEAD": 1, "GET": 1}


async def test_an_oversize_bundle_is_refused_before_download(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    archive = zip_bytes(skills_tree())
    s3_client.put_object(Bucket=bucket, Key="skills.zip", Body=archive)
    s3_server.log.reset()
    limits = Limits(max_bundle_bytes=len(archive) - 1)
    backend = BundleBackend(
        f"s3://{bucket}/skills.zip", limits=limits, retry=FAST_RETRY, **s3_options(s3_server)
    )
    report = await SkillCatalog(backend).refresh()
    assert report.failure is not None
    assert f"over the {len(archive) - 1}-byte limit" in report.failure.message
    assert s3_server.log.kinds() == {"HEAD": 1}


async def test_github_refresh_is_one_tree_request(github: FakeGithub, repo: str) -> None:
    files = github.repos[("org", repo, "main")]
    files.update({f"skills/{path}": data for path, data in skills_tree().items()})
    files["README.md"] = b"not a skill"
    catalog = SkillCatalog(FsspecBackend(f"github://org:{repo}@main/skills", retry=FAST_RETRY))

    cold = await catalog.refresh()
    assert len(cold.added) == SKILLS
    # GithubFileSystem's constructor lists the root once; then one recursive tree request.
    assert github.log.count(contains="/git/trees/main") == 2
    assert github.log.count(contains="recursive") == 1
    assert github.log.count(contains="/contents/") == SKILLS  # no published-index check

    github.log.reset()
    assert not (await catalog.refresh()).has_changes
    assert github.log.count() == 1
    assert github.log.count(contains="recursive") == 1

    files["skills/skill-05/SKILL.md"] = skill_md("skill-05", "Changed.")
    github.log.reset()
    assert (await catalog.refresh()).changed == ("skill-05",)
    assert github.log.count() == 2
    assert github.log.count(contains="/contents/skills/skill-05/SKILL.md") == 1


async def test_gcs_refresh_is_one_listing(
    gcs_server: GcsServer, gcs_fs: Any, gcs_bucket: str
) -> None:
    gcs_fs.pipe({f"{gcs_bucket}/skills/{path}": data for path, data in skills_tree().items()})
    backend = FsspecBackend(f"gs://{gcs_bucket}/skills", **gcs_options(gcs_server))
    catalog = SkillCatalog(backend)
    gcs_server.log.reset()

    assert len((await catalog.refresh()).added) == SKILLS
    assert gcs_server.log.count("GET", contains=f"/b/{gcs_bucket}/o?") == 1
    assert gcs_server.log.count(contains=".well-known/agent-skills/index.json") == 0
    assert gcs_server.log.count() == 1 + SKILLS

    gcs_server.log.reset()
    assert not (await catalog.refresh()).has_changes
    assert gcs_server.log.count() == 1


async def test_bundle_over_http_costs_a_head_when_unchanged(static_server: StaticServer) -> None:
    path = f"/bundles/{uuid.uuid4().hex}.zip"
    static_server.files[path] = zip_bytes(skills_tree(), prefix="release/")
    static_server.log.reset()
    catalog = SkillCatalog(BundleBackend(static_server.url + path, retry=FAST_RETRY))

    assert len((await catalog.refresh()).added) == SKILLS
    assert static_server.log.kinds() == {"HEAD": 1, "GET": 1}

    static_server.log.reset()
    assert not (await catalog.refresh()).has_changes
    assert static_server.log.kinds() == {"HEAD": 1}


async def test_gcs_bundle_downloads_only_when_changed(
    gcs_server: GcsServer, gcs_fs: Any, gcs_bucket: str
) -> None:
    gcs_fs.pipe_file(f"{gcs_bucket}/skills.zip", zip_bytes(skills_tree()))
    backend = BundleBackend(f"gs://{gcs_bucket}/skills.zip", **gcs_options(gcs_server))
    catalog = SkillCatalog(backend)
    metadata = f"/storage/v1/b/{gcs_bucket}/o/skills.zip"
    # gcsfs's info() asks for the object's metadata and, in parallel, lists a possible folder
    # of the same name; it cancels the listing once the metadata arrives, sometimes before
    # the listing reaches the server. So: one metadata request, at most one listing.
    gcs_server.log.reset()
    assert len((await catalog.refresh()).added) == SKILLS
    assert [request.path for request in gcs_server.log.requests].count(metadata) == 1
    assert gcs_server.log.count("GET", contains="alt=media") == 1
    assert gcs_server.log.count() <= 3

    gcs_server.log.reset()
    assert not (await catalog.refresh()).has_changes
    assert [request.path for request in gcs_server.log.requests].count(metadata) == 1
    assert gcs_server.log.count("GET", contains="alt=media") == 0
    assert gcs_server.log.count() <= 2


async def test_an_oversize_resource_is_refused_unread(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    harness.put_tree(skills_tree(1))
    backend = harness.backend()
    await backend.list()
    s3_server.log.reset()
    with pytest.raises(LimitExceededError, match="over the 4-byte limit"):
        await backend.read("skill-00", "references/r0.md", max_bytes=4)
    assert s3_server.log.count() == 0
