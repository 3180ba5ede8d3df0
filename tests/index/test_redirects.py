"""Redirects of the index and of archives: credentials stay on the index's origin.

Two loopback servers on different ports are two origins. Whatever the caller gave as
credentials -- ``headers=``, ``client_kwargs`` headers or ``auth``, a ``user:password@`` --
reaches the first; the second, named by a ``302``, sees none of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from backends import HttpIndexBackend, StorageError
from backends._index.document import INDEX_PATH
from backends._index.reader import MAX_REDIRECTS
from backends.testing import skill_md
from skills_core import SkillCatalog
from tests.index.sites import FOLDER, Site, entry, index
from tests.remote.servers import StaticServer
from tests.remote.settings import FAST_RETRY
from tests.remote.zips import zip_bytes

ALPHA = skill_md("alpha")
BETA = zip_bytes({"SKILL.md": skill_md("beta"), "b.md": b"b"})
SECRETS = {"x-api-key", "private-token", "api-key", "authorization"}

with warnings.catch_warnings(category=DeprecationWarning, action="ignore"):
    BASIC = aiohttp.BasicAuth("reader", "pa55word")  # fsspec's documented way, deprecated in 3.14

CREDENTIALS: dict[str, tuple[str, dict[str, Any]]] = {
    "headers and a password in the URL": (
        "reader:pa55word@",
        {
            "headers": {"X-Api-Key": "k-123", "Private-Token": "glpat-123"},
            "client_kwargs": {"headers": {"api-key": "azure-123"}},
        },
    ),
    "client_kwargs auth and headers": (
        "",
        {
            "headers": {"X-Api-Key": "k-123", "Private-Token": "glpat-123"},
            "client_kwargs": {
                "headers": {"api-key": "azure-123"},
                "auth": BASIC,
            },
        },
    ),
}


@pytest.fixture
def elsewhere() -> Iterator[StaticServer]:
    server = StaticServer().start()
    yield server
    server.stop()


def backend_for(site: Site, case: str) -> HttpIndexBackend:
    userinfo, options = CREDENTIALS[case]
    url = site.url.replace("http://", f"http://{userinfo}")
    return HttpIndexBackend(url, retry=FAST_RETRY, **options)


def publish(server: StaticServer, root: str) -> None:
    """An index at ``root`` listing alpha (SKILL.md) and beta (an archive)."""
    server.files[f"{root}{FOLDER}/alpha/SKILL.md"] = ALPHA
    server.files[f"{root}{FOLDER}/beta.zip"] = BETA
    server.files[f"{root}/{INDEX_PATH}"] = index(
        entry("alpha", "skill-md", "alpha/SKILL.md", ALPHA),
        entry("beta", "archive", "beta.zip", BETA),
    )


def sent(server: StaticServer, prefix: str) -> list[set[str]]:
    """The header names (lower case) of each request below ``prefix``."""
    seen = server.headers_seen
    return [{name.lower() for name in h} for path, h in seen if path.startswith(prefix)]


async def loaded(backend: HttpIndexBackend) -> SkillCatalog:
    catalog = SkillCatalog(backend)
    report = await catalog.refresh()
    assert report.failure is None, report.failure
    assert not catalog.errors, catalog.errors
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta"]
    assert await catalog.read_resource("beta", "b.md") == b"b"
    return catalog


@pytest.mark.parametrize("case", CREDENTIALS)
async def test_a_redirect_to_another_origin_carries_no_credentials(
    site: Site, elsewhere: StaticServer, case: str
) -> None:
    publish(site.server, site.root)
    publish(elsewhere, "/mirror")
    site.server.redirects[f"{site.root}/{INDEX_PATH}"] = f"{elsewhere.url}/mirror/{INDEX_PATH}"
    # The archive leaves the origin, and a third hop comes back to it.
    site.server.redirects[f"{site.root}{FOLDER}/beta.zip"] = f"{elsewhere.url}/bounce"
    elsewhere.redirects["/bounce"] = f"{site.url}/back/beta.zip"
    site.put("back/beta.zip", BETA)

    await loaded(backend_for(site, case))

    first = sent(site.server, f"{site.root}/.well-known")
    assert len(first) == 3  # the index, alpha's SKILL.md, beta's archive
    assert all(names >= SECRETS for names in first)
    second = sent(elsewhere, "/")
    assert len(second) == 2  # the index, then the bounce
    assert all(not SECRETS & names for names in second)
    [back] = sent(site.server, f"{site.root}/back")
    assert not SECRETS & back


@pytest.mark.parametrize("case", CREDENTIALS)
async def test_a_redirect_on_the_same_origin_keeps_them(site: Site, case: str) -> None:
    publish(site.server, site.root)
    publish(site.server, f"{site.root}/v2")
    site.server.redirects[f"{site.root}/{INDEX_PATH}"] = f"{site.url}/v2/{INDEX_PATH}"
    site.server.redirects[f"{site.root}{FOLDER}/beta.zip"] = f"{site.root}/b.zip"
    site.put("b.zip", BETA)

    await loaded(backend_for(site, case))

    every = sent(site.server, site.root)
    assert len(every) == 5  # index twice, alpha, beta's archive twice
    assert all(names >= SECRETS for names in every)


async def test_endless_redirects_fail(site: Site) -> None:
    site.server.redirects[f"{site.root}/{INDEX_PATH}"] = f"{site.url}/{INDEX_PATH}"
    with pytest.raises(StorageError, match=f"more than {MAX_REDIRECTS} redirects"):
        await HttpIndexBackend(site.url, retry=FAST_RETRY).list()
    assert len(sent(site.server, site.root)) == MAX_REDIRECTS + 1
