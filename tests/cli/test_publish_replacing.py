"""Publishing over a publication: readers of the old index keep a whole publication throughout.

Artifacts are named by their digest, the index is written last, and only then are the files it
no longer lists removed: a publish killed half-way leaves the old publication whole, and a
completed one leaves nothing unreferenced behind.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from backends import Backend, FsspecBackend, HttpIndexBackend, LocalBackend
from backends._index.document import INDEX_PATH, SCHEMA
from backends.testing import skill_md
from skills_core import SkillCatalog, publish
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, S3_KEY, S3_SECRET, s3_options

ROOT = Path(__file__).resolve().parents[2]
FOLDER = INDEX_PATH.rsplit("/", 1)[0]
SKILLS = 150
STALLED = "skill-149"  # the last archive: its upload starts when the others are done


def write_edition(root: Path, edition: str, count: int = SKILLS) -> None:
    """``count`` skills whose notes say ``edition`` (each publishes as an archive)."""
    for number in range(count):
        name = f"skill-{number:03d}"
        (root / name / "references").mkdir(parents=True, exist_ok=True)
        (root / name / "SKILL.md").write_bytes(skill_md(name))
        (root / name / "references" / "notes.md").write_text(f"{edition} of {name}\n")


def keys(s3_client: Any, bucket: str) -> dict[str, bytes]:
    """Every object below the publication's folder, by path below ``site/``."""
    listed = s3_client.list_objects_v2(Bucket=bucket, Prefix=f"site/{FOLDER}/")
    return {
        item["Key"].removeprefix("site/"): s3_client.get_object(Bucket=bucket, Key=item["Key"])[
            "Body"
        ].read()
        for item in listed.get("Contents", [])
    }


def etags(s3_client: Any, bucket: str) -> set[tuple[str, str]]:
    """``(key, ETag)`` of every object below the publication's folder: one LIST."""
    listed = s3_client.list_objects_v2(Bucket=bucket, Prefix=f"site/{FOLDER}/")
    return {(item["Key"], item["ETag"]) for item in listed.get("Contents", [])}


def listed_urls(index: bytes) -> set[str]:
    return {f"{FOLDER}/{item['url']}" for item in json.loads(index)["skills"]}


def kill_midway(source: Path, url: str, s3_server: S3Server, s3_client: Any, bucket: str) -> int:
    """Run ``skillfs publish`` and SIGKILL it once every archive but one is written.

    The PUT of one archive is held by the server, so the kill lands while the others are in
    the bucket and the index is not. Returns how many archives were written.
    """
    before = etags(s3_client, bucket)
    environment = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "AWS_ENDPOINT_URL": s3_server.url,
        "AWS_ACCESS_KEY_ID": S3_KEY,
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    stalled = s3_server.log.stall("PUT", f"{FOLDER}/{STALLED}")
    process = subprocess.Popen(
        [sys.executable, "-m", "skills_core.cli", "publish", str(source), "-o", url],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        written: set[tuple[str, str]] = set()
        while len(written) < SKILLS - 1:  # poll the bucket for new or rewritten objects
            assert process.poll() is None, process.communicate()[1]
            written = etags(s3_client, bucket) - before
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        stalled.times = stalled.hits  # match no more; the dead upload stays held until teardown
    assert process.returncode == -signal.SIGKILL
    return len(written)


def serve_publicly(s3_client: Any, bucket: str) -> None:
    """Let anyone GET the bucket's objects, as a bucket behind a website does."""
    statement = {
        "Effect": "Allow",
        "Principal": "*",
        "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
    }
    policy = {"Version": "2012-10-17", "Statement": [statement]}
    s3_client.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))


async def all_notes(backend: Backend) -> dict[str, bytes]:
    """Each skill's notes, read through a fresh catalog (each archive verified on download)."""
    catalog = SkillCatalog(backend)
    report = await catalog.refresh()
    assert not report.errors
    names = [meta.name for meta in catalog.list()]
    notes = await asyncio.gather(
        *(catalog.read_resource(name, "references/notes.md") for name in names)
    )
    await backend.aclose()
    return dict(zip(names, notes, strict=True))


def editions(edition: str) -> dict[str, bytes]:
    return {f"skill-{n:03d}": f"{edition} of skill-{n:03d}\n".encode() for n in range(SKILLS)}


async def test_a_killed_publish_leaves_the_old_publication_whole_and_the_next_one_cleans_up(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    source, url = tmp_path / "skills", f"s3://{bucket}/site"
    options = s3_options(s3_server)
    await asyncio.to_thread(write_edition, source, "first")
    await publish(LocalBackend(source), url, out_options=options)
    first = await asyncio.to_thread(keys, s3_client, bucket)

    await asyncio.to_thread(write_edition, source, "second")
    written = await asyncio.to_thread(kill_midway, source, url, s3_server, s3_client, bucket)
    assert written == SKILLS - 1
    # Readers of the old index, from the bucket and over HTTP: every old skill, verified.
    assert await all_notes(FsspecBackend(url, retry=FAST_RETRY, **options)) == editions("first")
    await asyncio.to_thread(serve_publicly, s3_client, bucket)
    http = HttpIndexBackend(f"{s3_server.url}/{bucket}/site", retry=FAST_RETRY)
    assert await all_notes(http) == editions("first")
    now = await asyncio.to_thread(keys, s3_client, bucket)
    assert now[INDEX_PATH] == first[INDEX_PATH]
    assert {path: now[path] for path in first} == first  # not one old file rewritten

    await asyncio.to_thread(write_edition, source, "third")
    third = await publish(LocalBackend(source), url, out_options=options)
    after = await asyncio.to_thread(keys, s3_client, bucket)
    assert set(after) == {INDEX_PATH, *listed_urls(after[INDEX_PATH])}  # nothing unreferenced
    assert set(third.removed) == set(now) - {INDEX_PATH}  # the first and the killed second's
    assert await all_notes(FsspecBackend(url, retry=FAST_RETRY, **options)) == editions("third")


def published_files(out: Path) -> dict[str, bytes]:
    return {
        path.relative_to(out).as_posix(): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


async def test_readers_see_one_whole_publication_at_every_step_of_a_publish(
    tmp_path: Path, s3_server: S3Server, bucket: str
) -> None:
    source, url = tmp_path / "skills", f"s3://{bucket}/site"
    options = s3_options(s3_server)
    count = 5
    await asyncio.to_thread(write_edition, source, "first", count)
    await publish(LocalBackend(source), url, out_options=options)
    first, second = (
        {f"skill-{n:03d}": f"{edition} of skill-{n:03d}\n".encode() for n in range(count)}
        for edition in ("first", "second")
    )

    def reader() -> FsspecBackend:
        return FsspecBackend(url, retry=FAST_RETRY, **options)

    old_readers = [SkillCatalog(reader()) for _ in range(3)]  # each loads the old index only
    for catalog in old_readers:
        await catalog.refresh()

    async def notes(catalog: SkillCatalog) -> dict[str, bytes]:
        read = {
            meta.name: await catalog.read_resource(meta.name, "references/notes.md")
            for meta in catalog.list()
        }
        await catalog.backend.aclose()
        return read

    await asyncio.to_thread(write_edition, source, "second", count)
    index_put = s3_server.log.stall("PUT", INDEX_PATH)
    first_delete = s3_server.log.stall("DELETE", FOLDER)
    publishing = asyncio.create_task(publish(LocalBackend(source), url, out_options=options))
    steps = {
        "the new artifacts are written, the index is not": (index_put, first),
        "the index is written, the old artifacts not yet removed": (first_delete, second),
    }
    for (step, (held, latest)), old_reader in zip(steps.items(), old_readers, strict=False):
        assert await asyncio.to_thread(held.matched.wait, 30)
        assert await all_notes(reader()) == latest, step
        assert await notes(old_reader) == first, step  # the old publication is whole
        held.release()
    published = await publishing
    assert len(published.removed) == count
    assert await all_notes(reader()) == second
    # A reader of the old index once its archives are gone: the new index serves it.
    assert await notes(old_readers[-1]) == second


EARLIER = {
    "skill-000.zip": b"an archive of the earlier layout",
    "skill-001/SKILL.md": skill_md("skill-001"),
    ".skillfs-0123456789abcdef.tmp": b"half a write",
    "notes.txt": b"not skillfs's: kept",
    "v1/index.json": b"a pinned index: kept",
}
"""A folder published in the earlier layout, a killed write's leftover, and files of others."""


def write_earlier(site: Path) -> None:
    for path, data in EARLIER.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    listed = {"skill-000": "skill-000.zip", "skill-001": "skill-001/SKILL.md"}
    entries = [
        {
            "name": name,
            "type": "archive",
            "description": "d",
            "url": url,
            "digest": "sha256:" + "0" * 64,
        }
        for name, url in listed.items()
    ]
    (site / "index.json").write_text(json.dumps({"$schema": SCHEMA, "skills": entries}))


async def test_a_local_publish_removes_what_the_replaced_index_listed_and_keeps_other_files(
    tmp_path: Path,
) -> None:
    source, out = tmp_path / "skills", tmp_path / "site"
    await asyncio.to_thread(write_edition, source, "first", 2)
    await asyncio.to_thread(write_earlier, out / FOLDER)

    publication = await publish(LocalBackend(source), out)
    files = await asyncio.to_thread(published_files, out)
    removed = ("skill-000.zip", "skill-001/SKILL.md", ".skillfs-0123456789abcdef.tmp")
    assert set(publication.removed) == {f"{FOLDER}/{path}" for path in removed}
    kept = {f"{FOLDER}/notes.txt", f"{FOLDER}/v1/index.json"}
    assert set(files) == {INDEX_PATH, *kept, *listed_urls(files[INDEX_PATH])}
    assert not await asyncio.to_thread((out / FOLDER / "skill-001").exists)  # left empty: gone
