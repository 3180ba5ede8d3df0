"""SkillServer's protocol surface, in process (the SDK's in-memory client): what is published,
what is left out and why, errors, and when clients are told about changes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client import advertise
from mcp.server.subscriptions import ResourcesListChanged, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ServerEvent

from backends import LocalBackend
from backends._mcp.extension import (
    SKILLS_EXTENSION,
    ListSkillsParams,
    ListSkillsRequest,
    ListSkillsResult,
)
from backends._scopes import UntrustedFolder
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import LEFT_OUT_META, WARNINGS_META, SkillServer
from tests.mcp.client import get_skill, list_skills, read_verified
from tests.mcp.conftest import write_tree


@pytest.fixture
async def server(skills_root: Path) -> AsyncIterator[SkillServer]:
    server = SkillServer(SkillCatalog(LocalBackend(skills_root)), page_size=1)
    await server.refresh()
    yield server
    await server.aclose()


def connect(server: SkillServer) -> Client:
    """An in-process client (a fixture cannot hold it: the SDK's task groups must be left by
    the task that entered them)."""
    return Client(server.lowlevel, extensions=[advertise(SKILLS_EXTENSION)])


def events(server: SkillServer) -> list[ServerEvent]:
    heard: list[ServerEvent] = []
    server.changes.bus.subscribe(heard.append)
    return heard


async def test_entries_are_paged_and_complete(server: SkillServer) -> None:
    async with connect(server) as client:
        entries = await list_skills(client.session)
        files = await read_verified(client.session, entries[0])  # page_size=1: two pages
    assert [entry["uri"] for entry in entries] == [
        "skill://deploy/SKILL.md",
        "skill://pdf/SKILL.md",
    ]
    assert entries[0]["frontmatter"]["allowed-tools"] == "Bash Read"  # verbatim, as authored
    assert sorted(files) == ["skill://deploy/SKILL.md", "skill://deploy/scripts/ship.sh"]


async def test_unknown_skill_file_and_cursor_are_invalid_params(server: SkillServer) -> None:
    async with connect(server) as client:
        session = client.session
        for call in (
            get_skill(session, "skill://nope/SKILL.md"),
            session.read_resource("skill://pdf/references/nope.md"),
            session.read_resource("skill://nope/SKILL.md"),
            session.send_request(
                ListSkillsRequest(params=ListSkillsParams(cursor="x")), ListSkillsResult
            ),
        ):
            with pytest.raises(MCPError) as caught:
                await call
            assert caught.value.code == -32602


async def test_resources_list_names_each_skill(server: SkillServer) -> None:
    async with connect(server) as client:
        listed = await client.list_resources()
    assert [(r.uri, r.name, r.mime_type) for r in listed.resources] == [
        ("skill://deploy/SKILL.md", "deploy", "text/markdown"),
        ("skill://pdf/SKILL.md", "pdf", "text/markdown"),
    ]


async def test_a_lowercase_skill_md_is_published_as_skill_md(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"lower/skill.md": "---\nname: lower\ndescription: d\n---\nx\n"})
    server = SkillServer(SkillCatalog(LocalBackend(root)))
    await server.refresh()
    async with Client(server.lowlevel) as client:
        (entry,) = await list_skills(client.session)
        assert [r["uri"] for r in entry["resources"]] == ["skill://lower/SKILL.md"]
        files = await read_verified(client.session, entry)
        assert files["skill://lower/SKILL.md"].startswith(b"---\nname: lower")


async def test_skills_the_extension_cannot_carry_are_left_out_and_clients_told_why(
    tmp_path: Path,
) -> None:
    crowded = {f"crowded/data/{index}.txt": "x" for index in range(512)}
    root = write_tree(
        tmp_path,
        {
            "crowded/SKILL.md": "---\nname: crowded\ndescription: d\n---\nx\n",
            **crowded,
            "fine/SKILL.md": "---\nname: fine\ndescription: d\n---\nx\n",
        },
    )
    server = SkillServer(SkillCatalog(LocalBackend(root)))
    await server.refresh()
    assert set(server.left_out) == {"crowded"}
    assert "513 files, over the extension's 512" in server.left_out["crowded"]
    async with Client(server.lowlevel) as client:
        page = await client.session.send_request(
            ListSkillsRequest(params=ListSkillsParams()), ListSkillsResult
        )
        assert [e["uri"] for e in page.skills] == ["skill://fine/SKILL.md"]
        assert page.meta is not None
        assert page.meta[LEFT_OUT_META] == [
            {"name": "crowded", "reason": server.left_out["crowded"]}
        ]
        tools = await client.call_tool("list_skills", {})
        names = [skill["name"] for skill in tools.structured_content["skills"]]
        assert names == ["crowded", "fine"]  # the tools still serve it


async def test_what_the_lenient_catalog_serves_is_published_with_its_warning(
    tmp_path: Path,
) -> None:
    long_description = "Summarises long design reviews. " * 40  # 1,280 characters
    root = write_tree(
        tmp_path,
        {
            "review-digest/SKILL.md": "---\nname: review-digest\ndescription: "
            f"{long_description.strip()}\n---\n# Review digest\n",
            "fine/SKILL.md": "---\nname: fine\ndescription: d\n---\nx\n",
        },
    )
    catalog = SkillCatalog(LocalBackend(root))
    server = SkillServer(catalog)
    await server.refresh()
    assert server.left_out == {}
    async with connect(server) as client:
        page = await client.session.send_request(
            ListSkillsRequest(params=ListSkillsParams()), ListSkillsResult
        )
        entries = {entry["uri"]: entry for entry in page.skills}
        fetched = await get_skill(client.session, "skill://review-digest/SKILL.md")
        files = await read_verified(client.session, fetched)
    assert LEFT_OUT_META not in (page.meta or {})  # nothing left out
    wordy = entries["skill://review-digest/SKILL.md"]
    assert wordy == fetched
    assert wordy["frontmatter"]["description"] == long_description.strip()
    (warning,) = catalog.warnings
    assert wordy["_meta"] == {WARNINGS_META: [{"code": codes.TOO_LONG, "message": warning.message}]}
    assert "_meta" not in entries["skill://fine/SKILL.md"]
    assert list(files) == ["skill://review-digest/SKILL.md"]


async def test_the_frontmatter_published_is_the_files_not_what_the_catalog_judged(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path,
        {
            "colon/SKILL.md": "---\nname: colon\ndescription: Use for: notes\n---\nx\n",
            "tooled/SKILL.md": "---\nname: tooled\ndescription: d\n"
            "allowed-tools: [Bash, Read]\n---\nx\n",
        },
    )
    catalog = SkillCatalog(UntrustedFolder(root))  # withholds allowed-tools
    server = SkillServer(catalog)
    await server.refresh()
    assert catalog.metadata("tooled").allowed_tools == ()
    async with connect(server) as client:
        colon, tooled = await list_skills(client.session)
        await read_verified(client.session, colon)
    assert colon["frontmatter"] == {"name": "colon", "description": "Use for: notes"}  # repaired
    assert tooled["frontmatter"]["allowed-tools"] == ["Bash", "Read"]  # as written, not withheld


async def test_clients_hear_of_changes_once_and_only_of_real_ones(
    server: SkillServer, skills_root: Path
) -> None:
    heard = events(server)
    await server.refresh()
    assert heard == []  # nothing changed
    await _write(skills_root, {"pdf/references/forms.md": "# Forms\n\nEdited.\n"})
    await server.refresh()
    assert len(heard) == 1  # a supporting file changed: the entry's digests did
    await _write(skills_root, {"new/SKILL.md": "---\nname: new\ndescription: d\n---\nx\n"})
    await server.refresh()
    assert heard[1:] == [ResourcesListChanged(), ToolsListChanged()]  # and skill_name's enum


async def _write(root: Path, files: dict[str, str | bytes]) -> None:
    await asyncio.to_thread(write_tree, root, files)
