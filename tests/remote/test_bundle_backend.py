"""open_backend gives a bundle URL its own backend, at the cost a bundle always had."""

from __future__ import annotations

import uuid
from typing import Any

from backends import BundleBackend, open_backend
from skills_core import SkillCatalog
from tests.remote.servers import S3Server, StaticServer
from tests.remote.settings import FAST_RETRY, s3_options
from tests.remote.trees import SKILLS, skills_tree
from tests.remote.zips import zip_bytes


async def test_a_bundle_in_a_bucket_costs_a_head_when_unchanged(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    s3_client.put_object(Bucket=bucket, Key="skills.zip", Body=zip_bytes(skills_tree()))
    s3_server.log.reset()
    url = f"zip://::s3://{bucket}/skills.zip"
    async with open_backend(url, retry=FAST_RETRY, **s3_options(s3_server)) as backend:
        assert type(backend) is BundleBackend
        catalog = SkillCatalog(backend)
        assert len((await catalog.refresh()).added) == SKILLS
        assert s3_server.log.kinds() == {"HEAD": 1, "GET": 1}  # no index looked for

        s3_server.log.reset()
        assert not (await catalog.refresh()).has_changes
        assert await catalog.read_resource("skill-03", "references/r0.md") == b"# skill-03 0\n"
        assert s3_server.log.kinds() == {"HEAD": 1}


async def test_a_bundle_over_http_is_no_index(static_server: StaticServer) -> None:
    path = f"/bundles/{uuid.uuid4().hex}.zip"
    static_server.files[path] = zip_bytes(skills_tree(), prefix="release/")
    static_server.log.reset()
    async with open_backend(static_server.url + path, retry=FAST_RETRY) as backend:
        assert type(backend) is BundleBackend
        assert len((await SkillCatalog(backend).refresh()).added) == SKILLS
    assert static_server.log.kinds() == {"HEAD": 1, "GET": 1}
