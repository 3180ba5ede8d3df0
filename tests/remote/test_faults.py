"""Transient faults are retried by one layer; what still fails is reported, never hidden.

Faults are injected by the servers (503 SlowDown, 500 InternalError, dropped connections) and
every attempt is counted where it lands.
"""

from __future__ import annotations

from typing import Any

import pytest

from backends import FsspecBackend, RetryPolicy
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.remote.harnesses import S3Harness
from tests.remote.servers import FakeGithub, S3Server
from tests.remote.settings import FAST_RETRY, s3_options
from tests.remote.trees import SKILLS, skills_tree

KEY = "skill-03/SKILL.md"


@pytest.fixture
def harness(s3_server: S3Server, s3_client: Any, bucket: str) -> S3Harness:
    return S3Harness.filled(s3_server, s3_client, bucket, skills_tree())


@pytest.mark.parametrize(("status", "times"), [(503, 2), (500, 1), (None, 1)])
async def test_transient_get_failures_are_retried(
    harness: S3Harness, s3_server: S3Server, status: int | None, times: int
) -> None:
    s3_server.log.fail("GET", KEY, status=status, times=times)
    report = await SkillCatalog(harness.backend()).refresh()
    assert len(report.added) == SKILLS
    assert report.errors == ()
    assert s3_server.log.count("GET", KEY) == times + 1


async def test_a_transient_listing_failure_is_retried(
    harness: S3Harness, s3_server: S3Server
) -> None:
    s3_server.log.fail("GET", "list-type", status=503, times=2)
    report = await SkillCatalog(harness.backend()).refresh()
    assert report.ok
    assert len(report.added) == SKILLS
    assert s3_server.log.count("LIST") == 3


async def test_a_key_that_keeps_failing_is_reported_and_the_rest_load(
    harness: S3Harness, s3_server: S3Server
) -> None:
    s3_server.log.fail("GET", KEY, status=503)
    report = await SkillCatalog(harness.backend()).refresh()
    assert len(report.added) == SKILLS - 1
    [problem] = report.errors
    assert (problem.name, problem.code) == ("skill-03", codes.READ_FAILED)
    assert "SlowDown" in problem.message
    assert problem.location.endswith(KEY)
    # One retry layer: exactly the policy's attempts, not botocore's times s3fs's.
    assert s3_server.log.count("GET", KEY) == FAST_RETRY.attempts


async def test_default_policy_makes_four_attempts_in_all(
    harness: S3Harness, s3_server: S3Server
) -> None:
    s3_server.log.fail("GET", KEY, status=503)
    backend = FsspecBackend(harness.url, retry=RetryPolicy(), **s3_options(s3_server))
    report = await SkillCatalog(backend).refresh()
    assert [problem.name for problem in report.errors] == ["skill-03"]
    # botocore (5 attempts) inside s3fs's loop (5) made 25 before skillfs turned both off.
    assert s3_server.log.count("GET", KEY) == RetryPolicy().attempts == 4


async def test_a_connection_that_keeps_dropping_is_bounded(
    harness: S3Harness, s3_server: S3Server
) -> None:
    s3_server.log.fail("GET", KEY, status=None)
    report = await SkillCatalog(harness.backend()).refresh()
    assert [problem.name for problem in report.errors] == ["skill-03"]
    # aiohttp re-sends an idempotent request once when its connection drops (RFC 9112 9.3.1),
    # below any retry policy; skillfs's attempts come on top of that, and nothing else.
    assert s3_server.log.count("GET", KEY) == 2 * FAST_RETRY.attempts


async def test_a_failing_listing_keeps_the_last_good_catalog(
    harness: S3Harness, s3_server: S3Server
) -> None:
    catalog = SkillCatalog(harness.backend())
    await catalog.refresh()
    s3_server.log.reset()
    s3_server.log.fail("GET", "list-type", status=500)

    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert "InternalError" in report.failure.message
    assert len(catalog.list()) == SKILLS
    assert len(report.unchanged) == SKILLS
    assert s3_server.log.count("LIST") == FAST_RETRY.attempts
    assert s3_server.log.count("GET") == 0


async def test_access_denied_is_not_retried(harness: S3Harness, s3_server: S3Server) -> None:
    s3_server.log.fail("GET", KEY, status=403)
    report = await SkillCatalog(harness.backend()).refresh()
    [problem] = report.errors
    assert "access denied" in problem.message
    assert s3_server.log.count("GET", KEY) == 1


async def test_github_errors_are_retried_by_skillfs(github: FakeGithub, repo: str) -> None:
    files = github.repos[("org", repo, "main")]
    files.update({f"skills/{path}": data for path, data in skills_tree(3).items()})
    github.log.fail("GET", "recursive", status=502, times=1)
    github.log.fail("GET", "/contents/skills/skill-01/SKILL.md", status=None, times=1)
    catalog = SkillCatalog(FsspecBackend(f"github://org:{repo}@main/skills", retry=FAST_RETRY))

    report = await catalog.refresh()
    assert report.added == ("skill-00", "skill-01", "skill-02")
    assert github.log.count(contains="recursive") == 2
    assert github.log.count(contains="/contents/skills/skill-01/SKILL.md") == 2
