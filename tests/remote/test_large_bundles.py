"""Bundles of real size: refused from their end record, range-read past the download threshold,
and every file checked against the bundle's manifest.

Request counts are taken at the moto server, with the Range header of every GET.
"""

from __future__ import annotations

import io
import json
import logging
import random
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from backends import BundleBackend, Limits, MemoryBackend, VerificationError
from backends._remote.archives import MANIFEST_NAME, TAIL_BYTES
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._bundle.writer import build_bundle
from tests.remote.harnesses import replace_file
from tests.remote.servers import Request, S3Server
from tests.remote.settings import FAST_RETRY, s3_options

RANGED = Limits(bundle_download_bytes=256 * 1024)
"""Archives of a few hundred KiB are then range-read, as 64 MiB ones are by default."""


def skills(count: int, blob_bytes: int) -> dict[str, dict[str, bytes]]:
    """``count`` skills, each with an incompressible blob of ``blob_bytes``."""
    rng = random.Random(count)
    return {
        f"skill-{index:02d}": {
            "SKILL.md": skill_md(f"skill-{index:02d}", f"Skill number {index}."),
            "assets/blob.bin": rng.randbytes(blob_bytes),
        }
        for index in range(count)
    }


async def bundled(tree: Mapping[str, Mapping[str, bytes]]) -> bytes:
    """The archive ``skillfs bundle`` writes for ``tree``, manifest included."""
    return (await build_bundle(MemoryBackend(tree))).data


def rezipped(
    data: bytes,
    *,
    replace: Mapping[str, bytes] | None = None,
    add: Mapping[str, bytes] | None = None,
) -> bytes:
    """``data`` with members replaced or added; the manifest is left as it was."""
    source = zipfile.ZipFile(io.BytesIO(data))
    members = {name: source.read(name) for name in source.namelist()}
    members.update(replace or {})
    members.update(add or {})
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def gets(server: S3Server) -> list[Request]:
    return [request for request in server.log.requests if request.method == "GET"]


def ranged_bytes(request: Request) -> int:
    """How many bytes a GET's Range header asked for."""
    first, last = request.range.removeprefix("bytes=").split("-")
    return int(last) - int(first) + 1


async def s3_catalog(
    server: S3Server, client: Any, bucket: str, data: bytes, limits: Limits, **options: Any
) -> SkillCatalog:
    client.put_object(Bucket=bucket, Key="skills.zip", Body=data)
    server.log.reset()
    url = f"s3://{bucket}/skills.zip"
    return SkillCatalog(
        BundleBackend(url, limits=limits, retry=FAST_RETRY, **options, **s3_options(server))
    )


async def test_too_many_members_are_refused_from_the_tail_before_any_download(
    s3_server: S3Server, s3_client: Any, bucket: str, caplog: pytest.LogCaptureFixture
) -> None:
    data = await bundled(skills(30, 20_000))  # 61 members, about 600 KiB
    limits = Limits(max_bundle_entries=50)
    catalog = await s3_catalog(s3_server, s3_client, bucket, data, limits)

    with caplog.at_level(logging.WARNING, logger="skillfs"):
        report = await catalog.refresh()

    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert "bundle declares 61 members, over the 50-member limit" in report.failure.message
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}
    [tail] = gets(s3_server)
    assert ranged_bytes(tail) == TAIL_BYTES < len(data) / 5
    assert "over the 50-member limit" in caplog.text
    assert not any(record.exc_info for record in caplog.records)  # no traceback logged


async def test_a_bundle_over_the_size_limit_costs_one_head(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    data = await bundled(skills(3, 1000))
    catalog = await s3_catalog(s3_server, s3_client, bucket, data, Limits(max_bundle_bytes=1000))
    report = await catalog.refresh()
    assert report.failure is not None
    assert f"bundle is {len(data)} bytes, over the 1000-byte limit" in report.failure.message
    assert s3_server.log.kinds() == {"HEAD": 1}


async def test_a_bundle_up_to_the_threshold_is_downloaded_whole_after_its_tail(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    data = await bundled(skills(10, 20_000))
    catalog = await s3_catalog(s3_server, s3_client, bucket, data, Limits())
    assert len((await catalog.refresh()).added) == 10
    tail, head = gets(s3_server)
    assert (ranged_bytes(tail), ranged_bytes(head)) == (TAIL_BYTES, len(data) - TAIL_BYTES)
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 2}

    s3_server.log.reset()
    assert (await catalog.read_resource("skill-03", "assets/blob.bin"))[:4]
    assert s3_server.log.kinds() == {}  # served from memory


async def test_a_bundle_over_the_threshold_is_read_member_by_member(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    tree = skills(30, 20_000)
    data = await bundled(tree)
    catalog = await s3_catalog(s3_server, s3_client, bucket, data, RANGED)

    report = await catalog.refresh()
    assert len(report.added) == 30
    assert not report.errors
    # The tail (end record, central directory and manifest), then one merged window for the
    # thirty SKILL.md members: never the whole archive.
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 2}
    tail, window = gets(s3_server)
    assert ranged_bytes(tail) == TAIL_BYTES
    assert ranged_bytes(window) < len(data) - TAIL_BYTES

    s3_server.log.reset()
    blob = await catalog.read_resource("skill-07", "assets/blob.bin")
    assert blob == tree["skill-07"]["assets/blob.bin"]
    [read] = gets(s3_server)
    assert len(blob) < ranged_bytes(read) < len(blob) + 200  # the member's own bytes
    assert (await catalog.get("skill-07")).body.startswith("# skill-07")
    assert s3_server.log.kinds() == {"GET": 1}

    s3_server.log.reset()
    assert not (await catalog.refresh()).has_changes
    assert s3_server.log.kinds() == {"HEAD": 1}


async def test_members_far_apart_are_fetched_in_windows_of_their_own(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    data = await bundled(skills(6, 300_000))  # 300 KB between two SKILL.md members
    catalog = await s3_catalog(s3_server, s3_client, bucket, data, RANGED, max_concurrency=2)
    assert len((await catalog.refresh()).added) == 6
    # The tail, then one window per SKILL.md (each is 300 KB from the next).
    assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1 + 6}
    assert sum(ranged_bytes(request) for request in gets(s3_server)) < len(data) / 10


@pytest.fixture(params=[Limits(), RANGED], ids=["downloaded", "range-read"])
def limits(request: pytest.FixtureRequest) -> Limits:
    return request.param  # type: ignore[no-any-return]


async def load(path: Path, data: bytes, limits: Limits) -> SkillCatalog:
    replace_file(path, data)
    catalog = SkillCatalog(BundleBackend(str(path), limits=limits))
    await catalog.refresh()
    return catalog


async def test_a_skill_md_unlike_the_manifest_refuses_its_skill(
    tmp_path: Path, limits: Limits
) -> None:
    data = await bundled(skills(4, 100_000))
    forged = skill_md("skill-01", "Skill number 9.")  # same length, other bytes
    data = rezipped(data, replace={"skill-01/SKILL.md": forged})
    catalog = await load(tmp_path / "b.zip", data, limits)
    assert [meta.name for meta in catalog.list()] == ["skill-00", "skill-02", "skill-03"]
    [problem] = catalog.errors
    assert (problem.name, problem.code) == ("skill-01", codes.READ_FAILED)
    assert "SHA-256 differs from the bundle's manifest" in problem.message
    assert problem.location.endswith("b.zip!/skill-01/SKILL.md")


async def test_a_resource_unlike_the_manifest_is_refused_when_read(
    tmp_path: Path, limits: Limits
) -> None:
    tree = skills(4, 100_000)
    forged = bytes(100_000)
    data = rezipped(await bundled(tree), replace={"skill-02/assets/blob.bin": forged})
    catalog = await load(tmp_path / "b.zip", data, limits)
    assert len(catalog.list()) == 4
    with pytest.raises(VerificationError, match="SHA-256 differs"):
        await catalog.read_resource("skill-02", "assets/blob.bin")
    blob = await catalog.read_resource("skill-03", "assets/blob.bin")
    assert blob == tree["skill-03"]["assets/blob.bin"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"add": {"skill-01/scripts/extra.sh": b"echo hi\n"}}, "not listed in the bundle's"),
        ({"replace": {"skill-01/assets/blob.bin": b"short"}}, "declares 5 bytes, the bundle's"),
    ],
)
async def test_members_the_manifest_does_not_list_refuse_their_skill_unread(
    tmp_path: Path, change: dict[str, Mapping[str, bytes]], reason: str
) -> None:
    data = rezipped(await bundled(skills(3, 1000)), **change)
    catalog = await load(tmp_path / "b.zip", data, RANGED)
    assert [meta.name for meta in catalog.list()] == ["skill-00", "skill-02"]
    [problem] = catalog.errors
    assert (problem.name, problem.code) == ("skill-01", codes.READ_FAILED)
    assert reason in problem.message


async def test_an_unreadable_manifest_refuses_the_bundle(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    data = await bundled(skills(3, 1000))
    catalog = await load(path, data, Limits())
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read(MANIFEST_NAME))
    manifest["skills"][0]["files"][0]["sha256"] = "not a digest"
    replace_file(path, rezipped(data, replace={MANIFEST_NAME: json.dumps(manifest).encode()}))

    report = await catalog.refresh()
    assert report.failure is not None
    assert "unreadable bundle manifest" in report.failure.message
    assert len(catalog.list()) == 3  # the last good catalog is kept


async def test_a_bundle_without_manifest_loads_unchecked(tmp_path: Path) -> None:
    data = await bundled(skills(3, 1000))
    members = zipfile.ZipFile(io.BytesIO(data))
    plain = {name: members.read(name) for name in members.namelist() if name != MANIFEST_NAME}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in plain.items():
            archive.writestr(name, content)
    catalog = await load(tmp_path / "b.zip", buffer.getvalue(), RANGED)
    assert len(catalog.list()) == 3
    assert not catalog.errors
