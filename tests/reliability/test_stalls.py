"""A stalled store fails a refresh within the backend's time budget and the catalog survives.

Measured before the budget: a loopback endpoint that accepts connections and never answers held
a refresh for 62.2 s (4 attempts x s3fs's 15 s read timeout). Each operation now has
``timeout`` seconds in all (default 10 s; 10.4 s measured for that endpoint), and after a
timeout the backend fails at once for that long instead of waiting again per file. These tests
use budgets of a second and assert outcomes and request counts, never durations.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from backends import FsspecBackend, StorageError, open_backend
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.remote.conftest import github, repo  # noqa: F401
from tests.remote.harnesses import S3Harness
from tests.remote.servers import FakeGithub, S3Server
from tests.remote.settings import BOTOCORE_SESSION, FAST_RETRY, S3_KEY, S3_SECRET, s3_options
from tests.remote.trees import SKILLS, skills_tree

BUDGET = 2.0  # seconds: a refresh that does not stall ends well within it, even on a loaded machine
CONCURRENCY = 4


@pytest.fixture
def harness(s3_server: S3Server, s3_client: Any, bucket: str) -> S3Harness:
    return S3Harness.filled(s3_server, s3_client, bucket, skills_tree())


def backend(harness: S3Harness, *, timeout: float | None = BUDGET) -> FsspecBackend:
    return FsspecBackend(
        harness.url,
        retry=FAST_RETRY,
        timeout=timeout,
        max_concurrency=CONCURRENCY,
        **s3_options(harness.server),
    )


@pytest.fixture
def silent_endpoint() -> Iterator[str]:
    """An HTTP endpoint on loopback that accepts every connection and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def test_the_default_budget_fails_a_stalled_store_well_under_30_seconds() -> None:
    default = FsspecBackend("s3://bucket/skills").timeout
    assert default == 10.0
    # A stalled listing ends a refresh within one budget, stalled reads within two.
    assert 2 * default < 30


async def test_a_silent_endpoint_fails_the_first_refresh(silent_endpoint: str) -> None:
    source = open_backend("s3://bucket/skills", timeout=BUDGET, **s3_options_for(silent_endpoint))
    catalog = SkillCatalog(source)
    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert "timed out" in report.failure.message
    assert len(catalog) == 0


async def test_a_stalled_listing_keeps_the_last_good_catalog(
    harness: S3Harness, s3_server: S3Server
) -> None:
    catalog = SkillCatalog(backend(harness))
    await catalog.refresh()
    s3_server.log.reset()
    stall = s3_server.log.stall("GET", "list-type")

    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert "timed out" in report.failure.message
    assert len(catalog.list()) == SKILLS
    assert s3_server.log.count("LIST") == 1
    assert s3_server.log.count("GET") == 0
    stall.release()


async def test_stalled_reads_fail_together_and_the_next_refresh_reads_them(
    harness: S3Harness, s3_server: S3Server
) -> None:
    stall = s3_server.log.stall("GET", "SKILL.md")
    catalog = SkillCatalog(backend(harness))

    report = await catalog.refresh()
    assert report.added == ()
    assert len(report.errors) == SKILLS
    assert {problem.code for problem in report.errors} == {codes.READ_FAILED}
    messages = {problem.message.split(":")[0] for problem in report.errors}
    assert messages == {"timed out", "not tried"}
    # Only the reads in flight waited out the budget; the rest failed at once.
    assert s3_server.log.count("GET", "SKILL.md") == CONCURRENCY

    stall.release()
    await asyncio.sleep(BUDGET)  # the pause after a timeout
    again = await catalog.refresh()
    assert len(again.added) == SKILLS
    assert again.errors == ()


async def test_a_stalled_resource_read_times_out(harness: S3Harness, s3_server: S3Server) -> None:
    catalog = SkillCatalog(backend(harness))
    await catalog.refresh()
    stall = s3_server.log.stall("GET", "references/r1.md")

    with pytest.raises(StorageError, match="timed out") as raised:
        await catalog.read_resource("skill-01", "references/r1.md")
    assert raised.value.location is not None
    assert raised.value.location.endswith("skill-01/references/r1.md")
    stall.release()


async def test_after_a_timeout_calls_fail_at_once_then_try_again(
    harness: S3Harness, s3_server: S3Server
) -> None:
    catalog = SkillCatalog(backend(harness))
    await catalog.refresh()
    stall = s3_server.log.stall("GET", "list-type")
    assert (await catalog.refresh()).failure is not None
    stall.release()
    s3_server.log.reset()

    paused = await catalog.refresh()
    assert paused.failure is not None
    assert "not tried: the store timed out" in paused.failure.message
    assert s3_server.log.count() == 0

    await asyncio.sleep(BUDGET)
    resumed = await catalog.refresh()
    assert resumed.ok
    assert s3_server.log.count("LIST") == 1


async def test_without_a_budget_only_the_store_timeouts_apply(
    harness: S3Harness, s3_server: S3Server
) -> None:
    catalog = SkillCatalog(backend(harness, timeout=None))
    assert len((await catalog.refresh()).added) == SKILLS


async def test_a_stalled_github_api_fails_within_the_budget(
    github: FakeGithub,  # noqa: F811
    repo: str,  # noqa: F811
) -> None:
    files = github.repos[("org", repo, "main")]
    files.update({f"skills/{path}": data for path, data in skills_tree(2).items()})
    stall = github.log.stall("GET", "/git/trees/")
    source = FsspecBackend(f"github://org:{repo}@main/skills", retry=FAST_RETRY, timeout=BUDGET)

    report = await SkillCatalog(source).refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert "timed out" in report.failure.message
    stall.release()


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="timeout"):
        FsspecBackend("s3://bucket/skills", timeout=0)


def s3_options_for(endpoint: str) -> dict[str, Any]:
    return {
        "endpoint_url": endpoint,
        "key": S3_KEY,
        "secret": S3_SECRET,
        "client_kwargs": {"region_name": "us-east-1"},
        "session": BOTOCORE_SESSION,
    }
