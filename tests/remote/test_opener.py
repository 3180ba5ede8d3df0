"""open_backend routes remote URLs to BundleBackend or FsspecBackend, and says what is missing."""

from __future__ import annotations

import sys

import pytest

from backends import (
    Backend,
    BundleBackend,
    FsspecBackend,
    LocalBackend,
    MemoryBackend,
    MissingDependencyError,
    RetryPolicy,
    UnsupportedSourceError,
    open_backend,
)
from backends._remote.urls import protocol_of
from tests.remote.servers import FakeGithub, S3Server
from tests.remote.settings import s3_options


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("./skills", LocalBackend),
        ("/srv/skills", LocalBackend),
        ("file:///srv/skills", LocalBackend),
        ("memory:", MemoryBackend),
        ("s3://bucket/skills", FsspecBackend),
        ("gs://bucket/skills", FsspecBackend),
        ("github://org:repo@main/skills", FsspecBackend),
    ],
)
def test_folders_route_by_scheme(source: str, kind: type[Backend]) -> None:
    assert type(open_backend(source)) is kind


def test_fsspecs_process_wide_memory_store_is_shared_only_on_purpose() -> None:
    with pytest.raises(UnsupportedSourceError, match="process-wide") as refused:
        open_backend("memory://skills")
    assert "'memory:'" in str(refused.value)
    assert isinstance(FsspecBackend("memory://skills"), FsspecBackend)
    assert open_backend("memory:") is not open_backend("memory:")


@pytest.mark.parametrize(
    "source",
    [
        "./bundle.zip",
        "/srv/skills/Bundle.ZIP",
        "file:///srv/bundle.zip",
        "s3://bucket/bundles/skills.zip",
        "zip://::s3://bucket/bundles/skills.zip",
        "zip://inner/folder::gs://bucket/skills.zip",
        "https://example.invalid/skills.zip",
    ],
)
def test_zip_paths_and_urls_are_bundles(source: str) -> None:
    backend = open_backend(source)
    assert type(backend) is BundleBackend


@pytest.mark.parametrize("source", ["s3://bucket/skills", "./skills", "memory://skills"])
def test_a_bundle_backend_refuses_a_folder(s3_server: S3Server, source: str) -> None:
    with pytest.raises(UnsupportedSourceError, match="not a zip bundle"):
        BundleBackend(source, **s3_options(s3_server))
    assert s3_server.log.count() == 0


def test_opening_does_no_io(s3_server: S3Server, bucket: str) -> None:
    open_backend(f"s3://{bucket}/skills", **s3_options(s3_server))
    assert s3_server.log.count() == 0


async def test_github_filesystem_is_built_off_the_event_loop(github: FakeGithub, repo: str) -> None:
    backend = open_backend(f"github://org:{repo}@main/skills")
    assert github.log.count() == 0
    # GithubFileSystem's constructor requests the root tree with ``requests``; the autouse
    # blockbuster fixture fails this test if that happens on the event loop.
    assert await backend.list() == []
    assert github.log.count(contains="/git/trees/main") == 2


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("nosuchscheme://x/y", "no backend or filesystem for nosuchscheme://"),
        ("x://y", "no backend or filesystem for x:// URLs"),  # one letter: a URL, not a path
        ("zip://inner", "names its archive after '::'"),
    ],
)
def test_unknown_sources_are_refused(source: str, message: str) -> None:
    with pytest.raises(UnsupportedSourceError, match=message):
        open_backend(source)


def test_a_one_letter_scheme_is_a_drive_only_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    assert protocol_of("x://y") == "x"
    monkeypatch.setattr(sys, "platform", "win32")
    assert protocol_of("C://skills") == "file"
    assert protocol_of("s3://b") == "s3"


def test_fsspec_backend_reads_no_http_folder() -> None:
    with pytest.raises(UnsupportedSourceError, match=r"must name a \.zip bundle"):
        FsspecBackend("https://example.invalid/skills/")


@pytest.mark.parametrize("source", ["./skills", "memory:"])
def test_storage_options_are_for_remote_storage(source: str) -> None:
    with pytest.raises(UnsupportedSourceError, match="endpoint_url"):
        open_backend(source, endpoint_url="http://127.0.0.1:1")


@pytest.mark.parametrize(
    ("source", "module", "extra"),
    [
        ("s3://bucket/skills", "s3fs", "s3"),
        ("zip://::s3://bucket/skills.zip", "s3fs", "s3"),
        ("gs://bucket/skills", "gcsfs", "gcs"),
        ("github://org:repo@main/", "requests", "github"),
        ("https://example.invalid/skills.zip", "aiohttp", "http"),
    ],
)
def test_a_missing_package_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, source: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingDependencyError) as raised:
        open_backend(source)
    assert f'pip install "agent-skillfs[{extra}]"' in str(raised.value)
    assert isinstance(raised.value, ImportError)


async def test_a_missing_package_without_an_extra_keeps_fsspec_hint() -> None:
    # adlfs is not installed here and skillfs has no extra for Azure.
    backend = open_backend("abfs://container/skills", account_name="loopback")
    with pytest.raises(MissingDependencyError, match="adlfs"):
        await backend.list()


def test_locations_never_show_a_password() -> None:
    backend = open_backend("https://reader:pa55word-0123@example.invalid/skills.zip")
    assert backend.location == "https://reader:***@example.invalid/skills.zip"
    assert "pa55word" not in repr(backend)


def test_nonsense_settings_are_refused_early() -> None:
    with pytest.raises(ValueError, match="attempts"):
        RetryPolicy(attempts=0)
    with pytest.raises(ValueError, match="max_concurrency"):
        FsspecBackend("memory://skills", max_concurrency=0)
