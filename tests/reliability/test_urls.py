"""A URL that names no bucket, repository or folder is refused at once, in one line (#8.7).

Before, ``gs://`` spent about a minute looking for Google credentials, ``github://`` failed
with an internal ``TypeError``, and ``''``, ``file://`` and ``::`` quietly listed the current
folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from backends import (
    BundleBackend,
    FsspecBackend,
    LocalBackend,
    UnsupportedSourceError,
    open_backend,
)
from backends._remote.output_folder import write_bytes

ROOT = Path(__file__).resolve().parents[2]

EMPTY_URLS = {
    "": "empty source",
    "   ": "empty source",
    "s3://": "names no bucket",
    "s3:///skills": "names no bucket",
    "s3a://": "names no bucket",
    "gs://": "names no bucket",
    "gcs://": "names no bucket",
    "github://": "names no repository",
    "github://org": "names no repository",
    "github://:repo@main": "names no repository",
    "file://": "names no folder",
    "::": "empty link",
    "::s3://bucket/skills": "empty link",
    "https://": "names no host",
    "zip://::s3://": "names no bucket",
}

# Runs the CLI in a fresh process and reports which storage clients it imported: a credential
# lookup needs google.auth (gs://) or botocore (s3://).
_PROBE = """
import json, sys
from skills_core.cli import main
code = main(sys.argv[1:])
clients = ("google.auth", "gcsfs", "botocore", "s3fs", "requests", "fsspec.implementations.github")
print(json.dumps({"code": code, "imported": [m for m in clients if m in sys.modules]}))
"""


@pytest.mark.parametrize(("url", "reason"), EMPTY_URLS.items())
def test_open_backend_refuses_a_url_that_names_nothing(url: str, reason: str) -> None:
    with pytest.raises(UnsupportedSourceError, match=reason) as raised:
        open_backend(url)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(("url", "reason"), EMPTY_URLS.items())
def test_fsspec_backend_refuses_it_too(url: str, reason: str) -> None:
    with pytest.raises(UnsupportedSourceError, match=reason):
        FsspecBackend(url)


@pytest.mark.parametrize("url", ["", "s3://", "gs://", "::"])
async def test_an_output_url_that_names_nothing_is_refused(url: str) -> None:
    with pytest.raises(UnsupportedSourceError):
        await write_bytes(url, b"data")


@pytest.mark.parametrize("url", ["gs://", "s3://", "github://", "", "file://", "::"])
def test_the_cli_says_so_in_one_line_without_touching_credentials(url: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, "list", url],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    probe = json.loads(result.stdout)
    assert probe == {"code": 2, "imported": []}
    [line] = result.stderr.splitlines()
    assert line.startswith("error: ")
    assert any(reason in line for reason in EMPTY_URLS.values()), line


@pytest.mark.parametrize(
    ("url", "kind", "location"),
    [
        ("s3://bucket", FsspecBackend, "s3://bucket"),
        ("gs://bucket/skills", FsspecBackend, "gs://bucket/skills"),
        ("github://org:repo@main/skills", FsspecBackend, "github://org:repo@main/skills"),
        ("github://org:repo", FsspecBackend, "github://org:repo"),
        ("zip://::s3://bucket/skills.zip", BundleBackend, "zip://::s3://bucket/skills.zip"),
        ("https://example.invalid/skills.zip", BundleBackend, "https://example.invalid/skills.zip"),
        ("file:///srv/skills", LocalBackend, "/srv/skills"),
        (".", LocalBackend, str(Path.cwd())),
    ],
)
def test_urls_that_name_something_open_the_backend_for_it(
    url: str, kind: type, location: str
) -> None:
    backend = open_backend(url)
    assert type(backend) is kind
    assert backend.location == location
