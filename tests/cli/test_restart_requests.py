"""`skillfs list` in new processes, counted at a moto server: a bundle and a published folder
restart in one HEAD when unchanged (the catalog cache keeps their state)."""

from __future__ import annotations

from pathlib import Path

from backends import LocalBackend
from skills_core._bundle.publish import publish
from skills_core._bundle.writer import build_bundle
from tests.cli.test_subprocess import skillfs
from tests.remote.harnesses import S3Harness
from tests.remote.trees import skills_tree

SKILLS = 4


def listed(s3: S3Harness, url: str) -> dict[str, int]:
    """The requests of one `skillfs list URL` process."""
    s3.server.log.reset()
    done = skillfs("list", url)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == SKILLS + 1  # a header, then one line per skill
    return s3.server.log.kinds()


def source(tmp_path: Path) -> LocalBackend:
    for path, data in skills_tree(SKILLS).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    return LocalBackend(tmp_path)


async def test_a_bundle_in_a_bucket_restarts_in_one_head(tmp_path: Path, s3: S3Harness) -> None:
    bundle = await build_bundle(source(tmp_path))
    s3.client.put_object(Bucket=s3.bucket, Key="skills.zip", Body=bundle.data)
    url = f"zip://::s3://{s3.bucket}/skills.zip"
    assert listed(s3, url) == {"HEAD": 1, "GET": 1}
    assert listed(s3, url) == {"HEAD": 1}


async def test_a_published_folder_restarts_in_one_head(tmp_path: Path, s3: S3Harness) -> None:
    await publish(source(tmp_path), s3.url)
    assert listed(s3, s3.url) == {"LIST": 1, "GET": 1}
    assert listed(s3, s3.url) == {"HEAD": 1}
