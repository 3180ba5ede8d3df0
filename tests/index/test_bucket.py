"""FsspecBackend over a bucket or folder holding a well-known index."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from backends import FsspecBackend
from backends._index.document import INDEX_PATH
from backends.testing import skill_md
from skills_core import SkillCatalog
from tests.index.harnesses import BucketHarness
from tests.index.sites import entry, index
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.remote.trees import skills_tree
from tests.remote.zips import zip_bytes

ALPHA = zip_bytes({"SKILL.md": skill_md("alpha"), "a.md": b"a"})


async def test_a_url_naming_the_index_reads_it_without_a_check(
    tmp_path: Path, s3_server: S3Server, bucket: str
) -> None:
    harness = BucketHarness(tmp_path / "source", s3_server, bucket)
    await harness.make_backend(skills_tree(3))
    url = f"{harness.url}/{INDEX_PATH}"
    s3_server.log.reset()
    catalog = SkillCatalog(FsspecBackend(url, retry=FAST_RETRY, **s3_options(s3_server)))
    assert len((await catalog.refresh()).added) == 3
    assert s3_server.log.kinds() == {"GET": 1}
    assert re.fullmatch(
        rf"{re.escape(harness.url)}/\.well-known/agent-skills/skill-01-[0-9a-f]{{64}}\.zip!/SKILL\.md",
        (await catalog.get("skill-01")).location,
    )


async def test_entry_urls_stay_in_the_bucket(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    folder = ".well-known/agent-skills"
    objects = {
        f"site/{folder}/alpha.zip": ALPHA,
        f"site/{folder}/other/beta.zip": ALPHA,
        f"site/{folder}/gamma.zip": ALPHA,
        f"site/{INDEX_PATH}": index(
            entry("alpha", "archive", f"/{folder}/alpha.zip", ALPHA),
            entry("beta", "archive", "other/../other/beta.zip", ALPHA),
            entry("gamma", "archive", "https://cdn.example.com/gamma.zip", ALPHA),
            entry("delta", "archive", "../../../../outside.zip", ALPHA),
        ),
    }
    for key, data in objects.items():
        s3_client.put_object(Bucket=bucket, Key=key, Body=data)
    backend = FsspecBackend(f"s3://{bucket}/site", retry=FAST_RETRY, **s3_options(s3_server))
    refs = {ref.name: ref for ref in await backend.list()}
    assert refs["alpha"].error is None
    assert refs["beta"].error is None
    assert refs["gamma"].error is not None
    assert "names another host" in refs["gamma"].error.message
    assert refs["delta"].location == f"s3://{bucket}/site/outside.zip!/SKILL.md"  # base, not above
    assert await backend.read("beta", "a.md") == b"a"


async def test_a_removed_index_is_a_refresh_error_until_reopened(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = BucketHarness(tmp_path / "source", s3_server, bucket)
    await harness.make_backend(skills_tree(2))
    plain = S3Harness(s3_server, s3_client, bucket, prefix="site")
    plain.put_tree({"local-only/SKILL.md": skill_md("local-only")})
    catalog = SkillCatalog(harness.backend())
    assert (await catalog.refresh()).added == ("skill-00", "skill-01")

    s3_client.delete_object(Bucket=bucket, Key=f"site/{INDEX_PATH}")
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.message == (
        f"listing failed (kept the last good catalog): {harness.url}: "
        "its published index is gone: this backend reads it as a published index, as it was "
        "when first listed; open it again to read it as it is now"
    )
    assert [meta.name for meta in catalog.list()] == ["skill-00", "skill-01"]  # kept
    reopened = SkillCatalog(harness.backend())
    assert (await reopened.refresh()).added == ("local-only",)


async def test_an_index_published_into_a_listed_folder_is_a_refresh_error(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    plain = S3Harness(s3_server, s3_client, bucket, prefix="site")
    plain.put_tree({"local-only/SKILL.md": skill_md("local-only")})
    catalog = SkillCatalog(plain.backend())
    assert (await catalog.refresh()).added == ("local-only",)

    await BucketHarness(tmp_path / "source", s3_server, bucket).make_backend(skills_tree(2))
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.message == (
        f"listing failed (kept the last good catalog): {plain.url}: "
        "it now holds a published index: this backend reads it as a folder of skills, as it "
        "was when first listed; open it again to read it as it is now"
    )
    assert [meta.name for meta in catalog.list()] == ["local-only"]
    assert (await SkillCatalog(plain.backend()).refresh()).added == ("skill-00", "skill-01")
