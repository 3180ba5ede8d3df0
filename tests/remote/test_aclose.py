"""aclose(): a remote backend lets go of its connections when asked, and can open them again."""

from __future__ import annotations

import asyncio
import uuid

from backends import BundleBackend, FsspecBackend
from skills_core import SkillCatalog
from tests.remote.connections import connections
from tests.remote.servers import StaticServer
from tests.remote.trees import skills_tree
from tests.remote.zips import zip_bytes


async def test_aclose_closes_the_http_session(static_server: StaticServer) -> None:
    path = f"/{uuid.uuid4().hex}/skills.zip"
    static_server.files[path] = zip_bytes(skills_tree(3))
    before = await connections(static_server)
    backend = BundleBackend(static_server.url + path)
    catalog = SkillCatalog(backend)
    assert len((await catalog.refresh()).added) == 3
    assert await connections(static_server) > before  # kept alive for the next refresh

    await backend.aclose()
    assert await connections(static_server) <= before

    static_server.log.reset()
    report = await catalog.refresh()  # a closed backend opens its session again when used
    assert report.ok
    assert not report.has_changes
    assert [request.method for request in static_server.log.requests] == ["HEAD", "GET"]
    await backend.aclose()


async def test_aclose_of_a_backend_never_used_connects_to_nothing() -> None:
    accepted = 0

    def count(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        writer.close()

    server = await asyncio.start_server(count, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        backend = FsspecBackend("s3://bucket/skills", endpoint_url=f"http://127.0.0.1:{port}")
        await backend.aclose()
        await backend.aclose()  # twice is as harmless as once
    assert accepted == 0


async def test_whoever_opens_the_backend_closes_it(static_server: StaticServer) -> None:
    path = f"/{uuid.uuid4().hex}/skills.zip"
    static_server.files[path] = zip_bytes(skills_tree(3))
    url = static_server.url + path
    before = await connections(static_server)

    async with BundleBackend(url) as backend:  # opened here: the catalog only reads it
        reader = SkillCatalog(backend)
        assert len((await reader.refresh()).added) == 3
        assert await connections(static_server) > before
    assert await connections(static_server) <= before


def test_a_catalog_is_opened_one_way() -> None:
    """``SkillCatalog(open_backend(url))``; there is no second spelling to keep equal."""
    assert not hasattr(SkillCatalog, "open")
