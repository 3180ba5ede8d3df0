"""Credentials never appear in errors, reports, reprs, tracebacks or logs."""

from __future__ import annotations

import json
import logging
import traceback
import uuid
from typing import Any

import pytest

from backends import Backend, BundleBackend, FsspecBackend, StorageError
from skills_core import SkillCatalog
from tests.remote.harnesses import S3Harness
from tests.remote.servers import FakeGithub, S3Server, StaticServer
from tests.remote.settings import FAST_RETRY, S3_KEY, S3_SECRET
from tests.remote.trees import skills_tree
from tests.remote.zips import zip_bytes

PASSWORD = "http-password-never-shown-0123"
TOKEN = "ghp_loopbackTokenNeverShown0123456789"


async def texts_of_a_failure(backend: Backend, caplog: pytest.LogCaptureFixture) -> list[str]:
    """Everything a failed refresh and a failed listing show a person."""
    report = await SkillCatalog(backend).refresh()
    assert report.failure is not None
    with pytest.raises(StorageError) as raised:
        await backend.list()
    return [
        repr(backend),
        backend.location,
        str(report.failure),
        json.dumps(report.to_dict()),
        "".join(traceback.format_exception(raised.value)),
        caplog.text,
    ]


async def test_basic_auth_from_an_http_url_is_sent_as_a_header(
    static_server: StaticServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    path = f"/private/{uuid.uuid4().hex}.zip"
    static_server.files[path] = zip_bytes(skills_tree(2))
    static_server.passwords[path] = ("reader", PASSWORD)
    url = static_server.url.replace("http://", f"http://reader:{PASSWORD}@") + path

    report = await SkillCatalog(BundleBackend(url, retry=FAST_RETRY)).refresh()
    assert report.added == ("skill-00", "skill-01")
    assert PASSWORD not in caplog.text


@pytest.mark.parametrize("status", [404, 500])
async def test_a_password_in_an_http_url_is_hidden(
    static_server: StaticServer, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    caplog.set_level(logging.DEBUG)
    path = f"/private/{uuid.uuid4().hex}.zip"
    if status != 404:
        static_server.files[path] = zip_bytes(skills_tree(1))
        static_server.log.fail("HEAD", path, status=status)
        static_server.log.fail("GET", path, status=status)
    url = static_server.url.replace("http://", f"http://reader:{PASSWORD}@") + path
    backend = BundleBackend(url, retry=FAST_RETRY)

    texts = await texts_of_a_failure(backend, caplog)
    assert backend.location.startswith("http://reader:***@127.0.0.1:")
    for text in texts:
        assert PASSWORD not in text


async def test_s3_keys_are_hidden(
    s3_server: S3Server, s3_client: Any, bucket: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    harness = S3Harness(s3_server, s3_client, bucket)
    s3_server.log.fail("GET", "list-type", status=403)

    *ours, logs = await texts_of_a_failure(harness.backend(), caplog)
    assert "access denied" in ours[2]
    for text in ours:
        assert S3_SECRET not in text
        assert S3_KEY not in text
    # botocore's own debug log names the access key id in request headers; never the secret.
    assert S3_SECRET not in logs


async def test_a_github_token_is_hidden(
    github: FakeGithub, repo: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    github.log.fail("GET", "recursive", status=500)
    url = f"github://org:{repo}@main/skills"
    backend = FsspecBackend(url, username="bot", token=TOKEN, retry=FAST_RETRY)

    texts = await texts_of_a_failure(backend, caplog)
    assert "500" in texts[2]
    for text in texts:
        assert TOKEN not in text
