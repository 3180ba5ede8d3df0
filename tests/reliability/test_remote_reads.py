"""Remote bytes are checked against the size the listing gave (#8.4).

Objects stored without a checksum (``request_checksum_calculation="when_required"``) and a
proxy that cuts a GET body short while keeping it self-consistent (a matching
``Content-Length``, the full object's ETag): before, the short body was accepted, kept under the
full object's ETag and never read again, and ``read_resource`` returned half a file. Now a
mismatch is a read failure for that skill or resource, nothing is kept, and the next refresh (or
read) tries again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from backends import Backend, FsspecBackend, StorageError, open_backend
from backends._remote.failures import IncompleteReadError
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.remote.conftest import gcs_bucket, gcs_fs, gcs_server, github, repo  # noqa: F401
from tests.remote.servers import FakeGithub, GcsServer, S3Server
from tests.remote.settings import FAST_RETRY, gcs_options, s3_client, s3_options
from tests.remote.zips import zip_bytes

TREE = {
    "alpha/SKILL.md": skill_md("alpha", "Alpha skill.", "# Alpha\n\n" + "Step.\n" * 40),
    "alpha/references/guide.md": b"# Guide\n\n" + b"Read me whole.\n" * 200,
    "beta/SKILL.md": skill_md("beta", "Beta skill."),
}
KEEP = 40
"""Bytes the proxy lets through of a cut response."""


@pytest.fixture
def plain_client(s3_server: S3Server) -> Any:
    """A client that stores objects without any checksum, as older or third-party tools do."""
    return s3_client(s3_server, request_checksum_calculation="when_required")


def put(client: Any, bucket: str, tree: Mapping[str, bytes], prefix: str = "skills") -> None:
    for path, data in tree.items():
        client.put_object(Bucket=bucket, Key=f"{prefix}/{path}", Body=data)


def s3_backend(server: S3Server, url: str) -> Backend:
    return open_backend(url, retry=FAST_RETRY, **s3_options(server))


async def test_a_short_skill_md_is_a_read_failure_retried_next_refresh(
    s3_server: S3Server, plain_client: Any, bucket: str
) -> None:
    put(plain_client, bucket, TREE)
    s3_server.log.reset()
    s3_server.log.truncate("GET", "alpha/SKILL.md", keep=KEEP)
    catalog = SkillCatalog(s3_backend(s3_server, f"s3://{bucket}/skills"))

    report = await catalog.refresh()
    assert report.added == ("beta",)
    [problem] = report.errors
    assert (problem.name, problem.code) == ("alpha", codes.READ_FAILED)
    assert problem.location.endswith("skills/alpha/SKILL.md")
    size = len(TREE["alpha/SKILL.md"])
    assert f"got {KEEP} of the {size} bytes the listing gave" in problem.message
    # A cut body is worth another attempt in the same refresh, within the retry policy.
    assert s3_server.log.count("GET", "alpha/SKILL.md") == FAST_RETRY.attempts

    s3_server.log.reset()
    again = await catalog.refresh()
    assert again.added == ("alpha",)
    assert again.errors == ()
    assert s3_server.log.count("GET", "alpha/SKILL.md") == 1
    assert catalog.skill_md("alpha") == TREE["alpha/SKILL.md"]


async def test_a_cut_body_once_is_retried_at_once(
    s3_server: S3Server, plain_client: Any, bucket: str
) -> None:
    put(plain_client, bucket, TREE)
    s3_server.log.reset()
    s3_server.log.truncate("GET", "alpha/SKILL.md", keep=KEEP, times=1)
    catalog = SkillCatalog(s3_backend(s3_server, f"s3://{bucket}/skills"))

    report = await catalog.refresh()
    assert report.added == ("alpha", "beta")
    assert catalog.skill_md("alpha") == TREE["alpha/SKILL.md"]
    assert s3_server.log.count("GET", "alpha/SKILL.md") == 2


async def test_a_short_new_version_keeps_serving_the_previous_one(
    s3_server: S3Server, plain_client: Any, bucket: str
) -> None:
    put(plain_client, bucket, TREE)
    catalog = SkillCatalog(s3_backend(s3_server, f"s3://{bucket}/skills"))
    await catalog.refresh()
    changed = skill_md("alpha", "Alpha, second edition.", "# Alpha 2\n\n" + "Step.\n" * 50)
    put(plain_client, bucket, {"alpha/SKILL.md": changed})
    s3_server.log.truncate("GET", "alpha/SKILL.md", keep=KEEP)

    report = await catalog.refresh()
    [problem] = report.errors
    assert problem.code == codes.READ_FAILED
    assert "still serving the previous version" in problem.message
    assert catalog.metadata("alpha").description == "Alpha skill."

    s3_server.log.reset()
    again = await catalog.refresh()
    assert again.changed == ("alpha",)
    assert catalog.metadata("alpha").description == "Alpha, second edition."


async def test_read_resource_never_returns_part_of_a_file(
    s3_server: S3Server, plain_client: Any, bucket: str
) -> None:
    put(plain_client, bucket, TREE)
    catalog = SkillCatalog(s3_backend(s3_server, f"s3://{bucket}/skills"))
    await catalog.refresh()
    fault = s3_server.log.truncate("GET", "guide.md", keep=KEEP)

    with pytest.raises(StorageError, match="bytes the listing gave") as raised:
        await catalog.read_resource("alpha", "references/guide.md")
    assert raised.value.location is not None
    assert raised.value.location.endswith("skills/alpha/references/guide.md")

    s3_server.log.faults.remove(fault)
    data = await catalog.read_resource("alpha", "references/guide.md")
    assert data == TREE["alpha/references/guide.md"]


async def test_a_short_bundle_download_fails_the_listing_and_is_read_again(
    s3_server: S3Server, plain_client: Any, bucket: str
) -> None:
    plain_client.put_object(Bucket=bucket, Key="skills.zip", Body=zip_bytes(TREE))
    s3_server.log.reset()
    fault = s3_server.log.truncate("GET", "skills.zip", keep=KEEP)
    catalog = SkillCatalog(s3_backend(s3_server, f"s3://{bucket}/skills.zip"))

    report = await catalog.refresh()
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert f"got {KEEP} of the" in report.failure.message
    assert "bytes asked for (cut short in transit" in report.failure.message

    s3_server.log.faults.remove(fault)
    again = await catalog.refresh()
    assert again.added == ("alpha", "beta")


async def test_github_bytes_unlike_the_listed_size_are_refused(
    github: FakeGithub,  # noqa: F811
    repo: str,  # noqa: F811
) -> None:
    files = github.repos[("org", repo, "main")]
    files.update({f"skills/{path}": data for path, data in TREE.items()})
    backend = FsspecBackend(f"github://org:{repo}@main/skills", retry=FAST_RETRY)
    await backend.list()
    files["skills/beta/SKILL.md"] = skill_md("beta", "Changed after the listing, and longer.")

    [result] = await backend.get_many(["beta"])
    assert isinstance(result, StorageError)
    assert "bytes, more than the" in result.message
    assert "the listing gave (changed since the listing)" in result.message


async def test_gcs_bytes_unlike_the_listed_size_are_refused(
    gcs_server: GcsServer,  # noqa: F811
    gcs_fs: Any,  # noqa: F811
    gcs_bucket: str,  # noqa: F811
) -> None:
    for path, data in TREE.items():
        gcs_fs.pipe_file(f"{gcs_bucket}/skills/{path}", data)
    backend = FsspecBackend(f"gs://{gcs_bucket}/skills", **gcs_options(gcs_server))
    await backend.list()
    gcs_fs.pipe_file(f"{gcs_bucket}/skills/alpha/references/guide.md", b"# Short now\n")

    with pytest.raises(StorageError, match="bytes the listing gave"):
        await backend.read("alpha", "references/guide.md", max_bytes=1 << 20)


@pytest.mark.parametrize(
    ("ranged", "expected"),
    [
        (False, "got 12 bytes, more than the 10 the listing gave (changed since the listing)"),
        (True, "got 12 bytes, more than the 10 asked for (the store ignored the byte range)"),
    ],
)
def test_a_body_longer_than_expected_is_not_called_cut_short(ranged: bool, expected: str) -> None:
    with pytest.raises(IncompleteReadError) as caught:
        IncompleteReadError.check(b"x" * 12, 10, location="s3://b/k", ranged=ranged)
    assert caught.value.message == expected
