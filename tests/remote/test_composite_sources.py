"""One failing source never empties a composite, and a composite restarts like its members.

S3 is a real moto server on loopback: reached without credentials, through a bucket that does
not exist yet, and denying its listings; beside them a good local folder and a missing one.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from backends import CompositeBackend, LocalBackend, open_backend
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._catalog.cache import CatalogCache
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.remote.trees import SKILLS, skills_tree
from tests.remote.zips import zip_bytes

LOCAL = ("alpha", "beta")


@pytest.fixture
def local(tmp_path: Path) -> LocalBackend:
    """A good local folder holding the skills :data:`LOCAL`."""
    for name in LOCAL:
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_bytes(skill_md(name))
    return LocalBackend(tmp_path / "skills")


@pytest.mark.usefixtures("no_aws_credentials")
async def test_sources_that_fail_their_first_listing_leave_the_others_served(
    tmp_path: Path, local: LocalBackend, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness.filled(s3_server, s3_client, bucket, skills_tree(2))
    uncredentialed = harness.backend(key=None, secret=None, session=None)
    missing = LocalBackend(tmp_path / "mistyped")
    catalog = SkillCatalog(CompositeBackend([local, uncredentialed, missing]))

    report = await catalog.refresh()
    assert report.ok
    assert report.added == LOCAL
    unavailable = {problem.location: problem for problem in catalog.snapshot.unavailable}
    assert list(unavailable) == [harness.url, missing.location]
    assert [problem for problem in report.errors if problem.name is None] == [*unavailable.values()]
    for problem in unavailable.values():
        assert problem.code == codes.LIST_FAILED
        assert problem.message.startswith("source unavailable (tried again on every refresh): ")
    assert unavailable[harness.url].message.endswith(
        "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
        "AWS_PROFILE, or FSSPEC_S3_ANON=true for a public bucket"
    )
    assert unavailable[missing.location].message.endswith("No such file or directory")
    assert s3_server.log.kinds() == {}  # without credentials, nothing was sent
    await catalog.backend.aclose()


async def test_a_source_that_comes_back_adds_its_skills(
    local: LocalBackend, s3_server: S3Server, s3_client: Any
) -> None:
    later = S3Harness(s3_server, s3_client, f"skills-{uuid.uuid4().hex[:12]}")
    catalog = SkillCatalog(CompositeBackend([local, later.backend()]))

    first = await catalog.refresh()
    assert first.added == LOCAL
    (gone,) = catalog.snapshot.unavailable
    assert (gone.location, gone.code) == (later.url, codes.LIST_FAILED)

    await asyncio.to_thread(s3_client.create_bucket, Bucket=later.bucket)
    await asyncio.to_thread(later.put_tree, skills_tree(2))
    again = await catalog.refresh()
    assert again.added == ("skill-00", "skill-01")
    assert catalog.snapshot.unavailable == ()
    assert not [problem for problem in again.errors if problem.name is None]
    await catalog.backend.aclose()


async def test_a_source_failing_later_keeps_its_skills_as_last_listed(
    local: LocalBackend, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness.filled(s3_server, s3_client, bucket, skills_tree(2))
    catalog = SkillCatalog(CompositeBackend([local, harness.backend()]))
    await catalog.refresh()

    denied = s3_server.log.fail("GET", "list-type", status=403)
    report = await catalog.refresh()
    assert (report.ok, report.removed) == (True, ())
    assert catalog.snapshot.names == (*LOCAL, "skill-00", "skill-01")
    (problem,) = catalog.snapshot.unavailable
    assert problem.location == harness.url
    assert "access denied" in problem.message

    s3_server.log.faults.remove(denied)
    await catalog.refresh()
    assert catalog.snapshot.unavailable == ()
    await catalog.backend.aclose()


async def test_when_every_source_fails_the_listing_fails_naming_each(tmp_path: Path) -> None:
    first, second = LocalBackend(tmp_path / "one"), LocalBackend(tmp_path / "two")
    report = await SkillCatalog(CompositeBackend([first, second])).refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert first.location in report.failure.message
    assert second.location in report.failure.message


async def test_a_composite_restarts_each_member_from_the_cache(
    tmp_path: Path, local: LocalBackend, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    s3_client.put_object(Bucket=bucket, Key="skills.zip", Body=zip_bytes(skills_tree()))
    url = f"zip://::s3://{bucket}/skills.zip"
    cache = CatalogCache(tmp_path / "cache")

    def composite() -> CompositeBackend:
        bundle = open_backend(url, retry=FAST_RETRY, **s3_options(s3_server))
        return CompositeBackend([LocalBackend(local.root), bundle])

    s3_server.log.reset()
    first = SkillCatalog(composite(), cache=cache)
    assert len((await first.refresh()).added) == len(LOCAL) + SKILLS
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}
    await first.backend.aclose()

    s3_server.log.reset()
    restarted = SkillCatalog(composite(), cache=cache)  # a new process, as far as S3 can tell
    report = await restarted.refresh()
    assert (len(report.added), report.fetched) == (len(LOCAL) + SKILLS, 0)
    assert s3_server.log.kinds() == {"HEAD": 1}  # the bundle unchanged: no GET
    await restarted.backend.aclose()


@pytest.mark.parametrize(
    "state",
    [b"junk", b"skillfs-composite-state-1\n{", b"skillfs-composite-state-1\n[1, 2]"],
)
def test_a_state_no_composite_exported_is_ignored(local: LocalBackend, state: bytes) -> None:
    composite = CompositeBackend([local, LocalBackend(local.root)])
    composite.import_state(state)
    assert composite.export_state() is None
