"""The discovery draft's rules, as HttpIndexBackend keeps them: schema, entries, URLs, origin."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from backends import (
    BundleBackend,
    HttpIndexBackend,
    LimitExceededError,
    Limits,
    StorageError,
    open_backend,
)
from backends._index.document import INDEX_PATH, SCHEMA
from backends._index.reader import archive_format
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.index.sites import FOLDER, Site, entry, index, tar_gz
from tests.remote.servers import StaticServer
from tests.remote.settings import FAST_RETRY
from tests.remote.zips import zip_bytes

ALPHA = skill_md("alpha")
BETA = zip_bytes({"SKILL.md": skill_md("beta"), "b.md": b"b"})


def good(site: Site) -> list[dict[str, object]]:
    site.put(f"{FOLDER}/alpha/SKILL.md", ALPHA)
    site.put(f"{FOLDER}/beta.zip", BETA)
    return [
        entry("alpha", "skill-md", "alpha/SKILL.md", ALPHA, version="1.2.0", owner="ignored"),
        entry("beta", "archive", "/" + site.root.strip("/") + f"{FOLDER}/beta.zip", BETA),
    ]


async def catalog_of(site: Site, **options: object) -> SkillCatalog:
    catalog = SkillCatalog(HttpIndexBackend(site.url, retry=FAST_RETRY, **options))  # type: ignore[arg-type]
    await catalog.refresh()
    return catalog


@pytest.fixture
def other_origin() -> Iterator[StaticServer]:
    server = StaticServer().start()
    yield server
    server.stop()


async def test_relative_and_path_absolute_urls_and_unknown_fields(site: Site) -> None:
    site.put(INDEX_PATH, index(*good(site)))
    catalog = await catalog_of(site)
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]
    assert catalog.errors == ()
    assert await catalog.read_resource("beta", "b.md") == b"b"
    assert (await catalog.get("alpha")).location == f"{site.url}{FOLDER}/alpha/SKILL.md"


@pytest.mark.parametrize(
    ("schema", "found"),
    [
        (None, "no $schema"),
        (
            "https://schemas.agentskills.io/discovery/9.0.0/schema.json",
            "$schema 'https://schemas.agentskills.io/discovery/9.0.0/schema.json'",
        ),
    ],
)
async def test_an_unknown_schema_is_not_processed_and_the_last_catalog_stays(
    site: Site, schema: str | None, found: str
) -> None:
    site.put(INDEX_PATH, index(*good(site)))
    catalog = await catalog_of(site)
    site.put(INDEX_PATH, index(*good(site), schema=schema))
    report = await catalog.refresh()
    assert report.failure is not None
    assert f"not processed: the index has {found}" in report.failure.message
    assert SCHEMA in report.failure.message
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]


async def test_unusable_entries_are_reported_and_the_others_load(site: Site) -> None:
    entries = good(site)
    bad = [
        {**entries[0], "name": "gamma", "type": "plugin"},
        {**entries[0], "name": "delta", "digest": "sha256:ABC"},
        {**entries[0], "name": "epsilon", "url": ""},
        {**entries[0], "name": "../zeta"},
        "not an object",
        {**entries[1], "description": "The same name again."},
        {**entries[0], "name": "eta", "url": "file:///etc/passwd"},
    ]
    site.put(INDEX_PATH, index(*entries, *bad))
    catalog = await catalog_of(site)
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]
    problems = {problem.name: problem for problem in catalog.errors}
    assert "skipped: unknown artifact type 'plugin'" in problems["gamma"].message
    assert "'digest' must be 'sha256:' and 64 lowercase hex digits" in problems["delta"].message
    assert "'url' must be a non-empty string" in problems["epsilon"].message
    assert "unsafe skill name '../zeta'" in problems["../zeta"].message
    assert problems["../zeta"].code == codes.UNSAFE_PATH
    assert "not a JSON object" in problems["skills[6]"].message
    assert "duplicate name: the first entry wins" in problems["skills[7]"].message
    assert "is not http(s)" in problems["eta"].message
    assert (await catalog.get("beta")).description == "A canonical test skill."


@pytest.mark.parametrize(
    ("body", "limits", "reason", "error"),
    [
        (b"{not json", Limits(), "not a skills index", StorageError),
        (
            json.dumps({"$schema": SCHEMA}).encode(),
            Limits(),
            "'skills' is not a list",
            StorageError,
        ),
        (None, Limits(max_index_bytes=100), "over the 100-byte limit", LimitExceededError),
    ],
)
async def test_what_is_not_an_index_fails_the_listing(
    site: Site, body: bytes | None, limits: Limits, reason: str, error: type[StorageError]
) -> None:
    site.put(INDEX_PATH, body if body is not None else index(*good(site)))
    with pytest.raises(error, match=reason):
        await HttpIndexBackend(site.url, limits=limits, retry=FAST_RETRY).list()


async def test_a_missing_index_says_where_it_looked(site: Site) -> None:
    with pytest.raises(StorageError, match="not found") as raised:
        await HttpIndexBackend(site.url, retry=FAST_RETRY).list()
    assert raised.value.location == f"{site.url}/{INDEX_PATH}"


def test_open_backend_finds_the_index_of_a_site() -> None:
    for url in ("https://example.com", "https://example.com/", "https://example.com/team/"):
        backend = open_backend(url)
        assert isinstance(backend, HttpIndexBackend)
        assert backend.location == f"{url.rstrip('/')}/{INDEX_PATH}"
    pinned = "https://example.com/.well-known/agent-skills/v1.2.0/index.json"
    assert open_backend(pinned).location == pinned
    assert isinstance(open_backend("https://example.com/skills.zip"), BundleBackend)


async def test_credentials_go_to_the_index_origin_only(
    site: Site, other_origin: StaticServer
) -> None:
    cdn = other_origin.url + "/cdn/beta.zip"
    other_origin.files["/cdn/beta.zip"] = BETA
    site.put(f"{FOLDER}/alpha/SKILL.md", ALPHA)
    site.put(
        INDEX_PATH,
        index(
            entry("alpha", "skill-md", "alpha/SKILL.md", ALPHA),
            entry("beta", "archive", cdn, BETA),
        ),
    )
    for path in (INDEX_PATH, f"{FOLDER}/alpha/SKILL.md"):
        site.server.passwords[f"{site.root}/{path}"] = ("reader", "pa55word-0123")
    url = site.url.replace("http://", "http://reader:pa55word-0123@")
    backend = HttpIndexBackend(url, headers={"X-Team": "skills"}, retry=FAST_RETRY)
    catalog = SkillCatalog(backend)
    await catalog.refresh()

    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]
    assert "pa55word" not in backend.location
    sent = [headers for path, headers in site.server.headers_seen if path.startswith(site.root)]
    assert all("Authorization" in headers and headers["X-Team"] == "skills" for headers in sent)
    [(_, to_cdn)] = other_origin.headers_seen
    assert "Authorization" not in to_cdn
    assert "X-Team" not in to_cdn


@pytest.mark.parametrize(
    ("content_type", "url", "data", "expected"),
    [
        ("application/zip", "x.bin", b"", "zip"),
        ("application/gzip; charset=binary", "x.zip", b"", "tar.gz"),
        ("application/octet-stream", "https://cdn/x.tgz", b"", "tar.gz"),
        (None, "https://cdn/x.tar.gz?v=2", b"", "tar.gz"),
        (None, "https://cdn/download", zip_bytes({"a": b"a"}), "zip"),
        ("application/octet-stream", "https://cdn/download", tar_gz({"a": b"a"}), "tar.gz"),
    ],
)
def test_the_archive_format_comes_from_type_then_extension_then_bytes(
    content_type: str | None, url: str, data: bytes, expected: str
) -> None:
    assert archive_format(content_type, url, data) == expected


def test_an_archive_of_no_known_format_is_refused() -> None:
    with pytest.raises(StorageError, match=r"not a zip or tar\.gz archive"):
        archive_format("text/html", "https://cdn/download", b"<html>")


async def test_a_generic_content_type_falls_back_to_the_bytes(site: Site) -> None:
    archive = tar_gz({"SKILL.md": skill_md("beta"), "b.md": b"b"})
    site.put(f"{FOLDER}/download", archive, content_type="application/octet-stream")
    site.put(INDEX_PATH, index(entry("beta", "archive", "download", archive)))
    catalog = await catalog_of(site)
    assert await catalog.read_resource("beta", "b.md") == b"b"
