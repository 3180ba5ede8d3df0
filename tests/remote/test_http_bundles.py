"""Zip bundles from ordinary HTTP servers, which ignore ``Range`` and send the whole file.

The server is the stdlib's own (``python -m http.server``); it records the status of every
answer and the body bytes it sent.
"""

from __future__ import annotations

import asyncio
import random
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from backends import (
    DEFAULT_LIMITS,
    BundleBackend,
    Limits,
    MemoryBackend,
    open_backend,
)
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._bundle.writer import build_bundle
from tests.remote.servers import FolderServer

SKILLS = {
    "pdf-forms": "Fill in PDF forms from a table of values.",
    "csv-reports": "Summarise CSV exports into a short weekly report.",
    "slide-outlines": "Turn meeting notes into a slide outline.",
    "release-notes": "Draft release notes from merged change titles.",
}
SMALL_LIMIT = Limits(bundle_download_bytes=256 * 1024)
REFUSAL = "the server does not answer ranged requests"


def tree(blob_bytes: int) -> dict[str, dict[str, bytes]]:
    """The skills, each with an incompressible sample of ``blob_bytes``."""
    rng = random.Random(blob_bytes)
    return {
        name: {
            "SKILL.md": skill_md(name, description),
            "assets/sample.bin": rng.randbytes(blob_bytes),
        }
        for name, description in SKILLS.items()
    }


def write_big_bundle(path: Path, size: int) -> None:
    """A bundle of the skills plus one stored member, ``size`` bytes in all or a little more."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, description in SKILLS.items():
            archive.writestr(f"{name}/SKILL.md", skill_md(name, description))
        archive.writestr("pdf-forms/assets/scans.bin", bytes(size))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("served")


@pytest.fixture(scope="module")
def ignoring(folder: Path) -> Iterator[FolderServer]:
    served = FolderServer(folder).start()
    yield served
    served.stop()


@pytest.fixture(scope="module")
def honouring(folder: Path) -> Iterator[FolderServer]:
    served = FolderServer(folder, ranges=True).start()
    yield served
    served.stop()


@pytest.fixture
def server(ignoring: FolderServer) -> FolderServer:
    """The stdlib's server, which ignores ``Range``, with an empty record."""
    ignoring.reset()
    return ignoring


@pytest.fixture
def ranged_server(honouring: FolderServer) -> FolderServer:
    """A server that honours ``Range``, with an empty record."""
    honouring.reset()
    return honouring


@pytest.fixture
def bundle(folder: Path) -> Iterator[Path]:
    """A fresh name in the served folder, deleted after the test."""
    path = folder / f"{uuid.uuid4().hex}.zip"
    yield path
    path.unlink(missing_ok=True)


async def publish(path: Path, blob_bytes: int) -> tuple[dict[str, dict[str, bytes]], bytes]:
    """Write ``skillfs bundle``'s archive of :func:`tree` to ``path``."""
    skills = tree(blob_bytes)
    data = (await build_bundle(MemoryBackend(skills))).data
    await asyncio.to_thread(path.write_bytes, data)
    return skills, data


def url(server: FolderServer, path: Path) -> str:
    return f"{server.url}/{path.name}"


@pytest.mark.parametrize(
    ("blob_bytes", "least", "most"),
    [(3_300, 14_000, 16_000), (24_500, 95_000, 105_000), (300_000, 1_150_000, 1_250_000)],
    ids=["15KB", "100KB", "1.2MB"],
)
async def test_a_bundle_is_downloaded_once_from_a_server_that_ignores_range(
    bundle: Path, server: FolderServer, blob_bytes: int, least: int, most: int
) -> None:
    skills, data = await publish(bundle, blob_bytes)
    assert least <= len(data) <= most
    catalog = SkillCatalog(open_backend(url(server, bundle)))

    report = await catalog.refresh()

    assert report.failure is None
    assert sorted(report.added) == sorted(SKILLS)
    assert server.answers == [("HEAD", 200), ("GET", 200)]
    assert server.sent == len(data)  # the bundle's body, once
    sample = await catalog.read_resource("csv-reports", "assets/sample.bin")
    assert sample == skills["csv-reports"]["assets/sample.bin"]
    assert not (await catalog.refresh()).has_changes
    assert server.answers == [("HEAD", 200), ("GET", 200), ("HEAD", 200)]
    await catalog.backend.aclose()


async def test_a_bundle_over_the_download_limit_is_refused_unread(
    bundle: Path, server: FolderServer
) -> None:
    size = DEFAULT_LIMITS.bundle_download_bytes + 1024 * 1024
    await asyncio.to_thread(write_big_bundle, bundle, size)
    catalog = SkillCatalog(open_backend(url(server, bundle)))

    report = await catalog.refresh()

    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert REFUSAL in report.failure.message
    assert "Limits.bundle_download_bytes (67108864 bytes)" in report.failure.message
    assert server.answers == [("HEAD", 200), ("GET", 200)]  # asked once, not retried
    assert await asyncio.to_thread(server.body_ended.wait, 10)
    assert server.sent < size // 2  # the client hung up after the headers
    await catalog.backend.aclose()


async def test_a_lower_download_limit_refuses_the_same_way(
    bundle: Path, server: FolderServer
) -> None:
    _, data = await publish(bundle, 300_000)
    assert len(data) > SMALL_LIMIT.bundle_download_bytes
    backend = BundleBackend(url(server, bundle), limits=SMALL_LIMIT)

    report = await SkillCatalog(backend).refresh()

    assert report.failure is not None
    message = report.failure.message
    assert f"{REFUSAL}: asked for bytes {len(data) - 65_633}-{len(data) - 1}" in message
    assert f"it sent the whole {len(data)}-byte file" in message
    assert "cut short" not in message
    assert server.answers == [("HEAD", 200), ("GET", 200)]
    await backend.aclose()


async def test_a_server_that_honours_range_is_read_in_ranges(
    bundle: Path, ranged_server: FolderServer
) -> None:
    skills, data = await publish(bundle, 300_000)
    backend = BundleBackend(url(ranged_server, bundle), limits=SMALL_LIMIT)
    catalog = SkillCatalog(backend)

    report = await catalog.refresh()

    assert report.failure is None
    assert sorted(report.added) == sorted(SKILLS)
    gets = [status for method, status in ranged_server.answers if method == "GET"]
    assert len(gets) > 1
    assert set(gets) == {206}
    assert ranged_server.sent < len(data)  # the tail, the directory and the SKILL.md windows
    sample = await catalog.read_resource("pdf-forms", "assets/sample.bin")
    assert sample == skills["pdf-forms"]["assets/sample.bin"]
    await backend.aclose()
