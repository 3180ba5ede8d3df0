"""A catalog that keeps metadata only: bodies read on demand, checked by fingerprint, never
stale; local folders re-read, remote backends keep the most recently read ones."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from backends import LocalBackend, SkillNotFoundError
from backends.testing import skill_md
from skills_core import SkillCatalog
from tests.backends.harnesses import LocalHarness
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server


def versioned(name: str, version: int) -> bytes:
    return skill_md(name, f"Version {version}.", body=f"# {name}\n\nBody version {version}.\n")


async def test_no_stale_body_after_a_change(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    backend = await harness.make_backend({"pdf/SKILL.md": versioned("pdf", 1)})
    catalog = SkillCatalog(backend, keep_bodies=False)
    await catalog.refresh()
    assert all(entry.raw == b"" for entry in catalog.snapshot.entries.values())
    assert (await catalog.get("pdf")).body.endswith("Body version 1.")

    await harness.write("pdf/SKILL.md", versioned("pdf", 2))
    # Before any refresh: the stored file no longer matches the entry's fingerprint, so the
    # skill is served as it is now, metadata and body together.
    skill = await catalog.get("pdf")
    assert (skill.description, skill.body.splitlines()[-1]) == ("Version 2.", "Body version 2.")
    assert catalog.metadata("pdf").description == "Version 1."  # the catalog's own view waits

    report = await catalog.refresh()
    assert report.changed == ("pdf",)
    assert (await catalog.get("pdf")).body.endswith("Body version 2.")
    assert await catalog.read_skill_md("pdf") == versioned("pdf", 2)


async def test_a_skill_renamed_since_the_refresh_asks_for_one(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    catalog = SkillCatalog(
        await harness.make_backend({"pdf/SKILL.md": versioned("pdf", 1)}), keep_bodies=False
    )
    await catalog.refresh()
    await harness.write("pdf/SKILL.md", versioned("pdf-tools", 2))
    with pytest.raises(SkillNotFoundError, match="refresh the catalog"):
        await catalog.get("pdf")


async def test_a_touched_skill_is_unchanged_and_an_edited_one_changed(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    backend = await harness.make_backend(
        {"a/SKILL.md": versioned("a", 1), "b/SKILL.md": versioned("b", 1)}
    )
    catalog = SkillCatalog(backend, keep_bodies=False)
    await catalog.refresh()
    await harness.write("a/SKILL.md", versioned("a", 1))  # new inode, same bytes
    await harness.write("b/SKILL.md", versioned("b", 2))
    report = await catalog.refresh()
    assert (report.unchanged, report.changed) == (("a",), ("b",))


async def test_only_the_async_reader_gives_the_bytes(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    catalog = SkillCatalog(
        await harness.make_backend({"pdf/SKILL.md": versioned("pdf", 1)}), keep_bodies=False
    )
    await catalog.refresh()
    assert not catalog.keeps_bodies
    with pytest.raises(RuntimeError, match="read_skill_md"):
        catalog.skill_md("pdf")
    assert await catalog.read_skill_md("pdf") == versioned("pdf", 1)


async def test_remote_bodies_are_cached_by_fingerprint(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    tree = {f"s{n}/SKILL.md": versioned(f"s{n}", 1) for n in range(3)}
    catalog = SkillCatalog(await harness.make_backend(tree), keep_bodies=False, body_cache=2)
    await catalog.refresh()
    log = s3_server.log

    log.reset()
    assert (await catalog.get("s0")).body.endswith("Body version 1.")
    assert log.kinds() == {"GET": 1}
    await catalog.get("s0")
    await catalog.get("s1")
    await catalog.get("s1")
    assert log.kinds() == {"GET": 2}  # s0 and s1 each read once
    await catalog.get("s2")  # the cache holds two: s0, read least recently, goes
    await catalog.get("s0")
    assert log.kinds() == {"GET": 4}

    await harness.write("s0/SKILL.md", versioned("s0", 2))
    await catalog.refresh()
    log.reset()
    assert (await catalog.get("s0")).body.endswith("Body version 2.")  # never the cached one
    assert log.kinds() == {"GET": 1}


def retained_bytes(root: Path, **options: Any) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        catalog = SkillCatalog(LocalBackend(root), **options)
        asyncio.run(catalog.refresh())
        gc.collect()
        size, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(catalog) == 300
    return size


def test_metadata_only_keeps_a_fraction_of_the_memory(tmp_path: Path) -> None:
    body = "Follow these steps carefully. " * 150  # 4.5 KB, as published skills go
    for n in range(300):
        folder = tmp_path / f"skill-{n:03d}"
        folder.mkdir()
        (folder / "SKILL.md").write_bytes(skill_md(f"skill-{n:03d}", body=body))
    full = retained_bytes(tmp_path)
    slim = retained_bytes(tmp_path, keep_bodies=False)
    assert slim < full / 3
