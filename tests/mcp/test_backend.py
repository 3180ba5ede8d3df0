"""McpSkillsBackend under a catalog: request counts, digests enforced, host rules kept."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from backends import LocalBackend, open_backend
from backends._digests import skill_digest
from backends._errors import (
    LimitExceededError,
    SkillNotFoundError,
    StorageError,
    UnsupportedSourceError,
)
from backends._mcp.backend import McpSkillsBackend, VerificationError
from backends.capabilities import MCP, Provenance
from skills_core import ApprovalStore, TrustPolicy
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core._errors import EntryMismatchError
from tests.mcp.harness import ServedFolder
from tests.mcp.recording import Corrupter, RequestLog

pytestmark = pytest.mark.asyncio


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(tmp_path / "cache")


async def approve_tools(store: ApprovalStore, digest: str) -> None:
    """The user approves ``allowed-tools`` of skill ``deploy``'s content ``digest``."""
    await asyncio.to_thread(store.approve, digest, name="deploy", source=".", tools=True)


async def test_request_counts_for_cold_no_change_and_one_change(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog
) -> None:
    catalog = SkillCatalog(backend)
    cold = await catalog.refresh()
    assert cold.added == ("deploy", "pdf")
    assert log.take() == {"server/discover": 1, "skills/list": 1}  # entries from the listing
    assert (await catalog.get("pdf")).body.startswith("# PDF")
    assert log.take() == {"resources/read": 1}  # its SKILL.md, on load
    again = await catalog.refresh()
    assert again.unchanged == ("deploy", "pdf")
    assert log.take() == {"skills/list": 1}  # digests unchanged: nothing re-read
    await served.write("pdf/SKILL.md", b"---\nname: pdf\ndescription: Changed.\n---\nNew.\n")
    changed = await catalog.refresh()
    assert changed.changed == ("pdf",)
    assert catalog.metadata("pdf").description == "Changed."
    assert log.take() == {"skills/list": 1}
    assert (await catalog.get("pdf")).body == "New."
    assert log.take() == {"resources/read": 1}


async def test_listing_follows_every_page(tmp_path: Path) -> None:
    harness = ServedFolder(tmp_path / "skills")
    harness.server = type(harness.server)(harness.server.catalog, page_size=2)
    log = RequestLog()
    harness.server.lowlevel.middleware.append(log)
    names = [f"skill-{index}" for index in range(5)]
    await harness.start(
        {f"{n}/SKILL.md": f"---\nname: {n}\ndescription: d\n---\nb\n".encode() for n in names}
    )
    backend = McpSkillsBackend(harness.url)
    try:
        assert [ref.name for ref in await backend.list()] == names
        assert log.take()["skills/list"] == 3
    finally:
        await backend.aclose()
        await harness.close()


async def test_files_and_sizes_come_from_the_entry_without_a_request(
    backend: McpSkillsBackend, log: RequestLog
) -> None:
    await backend.list()
    log.take()
    files = await backend.files("pdf")
    assert [entry.path for entry in files] == [
        "SKILL.md",
        "assets/logo.png",
        "references/forms.md",
        "scripts/fill.py",
    ]
    assert all(entry.fingerprint.startswith("sha256:") for entry in files)
    assert log.take() == {}


async def test_a_tampered_resource_is_refused(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog
) -> None:
    served.server.lowlevel.middleware.append(Corrupter("skill://pdf/references/forms.md"))
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    await catalog.get("pdf")
    log.take()
    with pytest.raises(VerificationError) as caught:
        await catalog.read_resource("pdf", "references/forms.md")
    message = str(caught.value)
    assert message.startswith("mcp[team]:skill://pdf/references/forms.md: refused:")
    assert "do not match" in message
    assert "tampered" in message
    # one read, then one skills/get to rule out a legitimate change, then refusal
    assert log.take() == {"resources/read": 1, "skills/get": 1}
    assert await catalog.read_resource("pdf", "scripts/fill.py") == b"print('filled')\n"


async def test_a_tampered_skill_md_refuses_that_skill_only(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog
) -> None:
    served.server.lowlevel.middleware.append(Corrupter("skill://deploy/SKILL.md"))
    catalog = SkillCatalog(backend)
    report = await catalog.refresh()
    assert report.added == ("deploy", "pdf")  # nothing read yet
    log.take()
    with pytest.raises(EntryMismatchError, match="do not match"):
        await catalog.get("deploy")
    assert log.take() == {"resources/read": 1, "skills/get": 1}
    (problem,) = catalog.errors
    assert (problem.name, problem.code) == ("deploy", codes.ENTRY_MISMATCH)
    with pytest.raises(SkillNotFoundError):
        await catalog.read_resource("deploy", "scripts/ship.sh")
    assert log.take() == {}
    assert (await catalog.get("pdf")).body.startswith("# PDF")


async def test_a_file_changed_since_listing_is_served_when_the_entry_confirms_it(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog
) -> None:
    await backend.list()
    new = b"# Forms\n\nField names changed.\n"
    await served.write("pdf/references/forms.md", new)
    log.take()
    assert await backend.read("pdf", "references/forms.md") == new
    assert log.take() == {"resources/read": 1, "skills/get": 1}
    assert await backend.read("pdf", "references/forms.md") == new
    assert log.take() == {"resources/read": 1}  # the fresh entry is held now


async def test_a_file_the_entry_does_not_list_is_never_requested(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog
) -> None:
    await backend.list()
    await served.write("pdf/references/new.md", b"added after the listing\n")
    log.take()
    with pytest.raises(StorageError, match="lists no file"):
        await backend.read("pdf", "references/new.md")
    assert log.take() == {}


async def test_host_limits_refuse_a_skill_before_any_read(
    served: ServedFolder, log: RequestLog
) -> None:
    backend = McpSkillsBackend(served.url, max_files=3, max_skill_bytes=400)
    try:
        refs = {ref.name: ref for ref in await backend.list()}
        assert isinstance(refs["pdf"].error, LimitExceededError)
        assert "4 files, over the 3-file limit" in str(refs["pdf"].error)
        assert refs["deploy"].error is None
        catalog = SkillCatalog(backend)
        report = await catalog.refresh()
        assert report.added == ("deploy",)
        assert [(p.name, p.code) for p in report.errors] == [("pdf", codes.TOO_LARGE)]
        assert "resources/read" not in log.take()  # nothing read before a load
    finally:
        await backend.aclose()


async def test_allowed_tools_of_mcp_skills_are_withheld_unless_approved(
    served: ServedFolder, store: ApprovalStore, tmp_path: Path
) -> None:
    backend = McpSkillsBackend(served.url)
    trusting = McpSkillsBackend(served.url)
    await approve_tools(store, await skill_digest(LocalBackend(tmp_path / "skills"), "deploy"))
    try:
        catalog = SkillCatalog(backend)
        report = await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ()
        assert [(w.name, w.code) for w in report.warnings] == [("deploy", codes.FIELD_WITHHELD)]
        trusted = SkillCatalog(trusting, trust=TrustPolicy(approvals=store))
        await trusted.refresh()
        assert trusted.metadata("deploy").allowed_tools == ("Bash", "Read")
        content = await skill_digest(LocalBackend(tmp_path / "skills"), "deploy")
        assert trusting.provenance("deploy") == Provenance(MCP, content)  # from the entry
    finally:
        await backend.aclose()
        await trusting.aclose()


@pytest.mark.parametrize("keep_bodies", [True, False])
async def test_an_approval_is_decided_again_at_every_listing_without_reading_again(
    served: ServedFolder, log: RequestLog, keep_bodies: bool, store: ApprovalStore, tmp_path: Path
) -> None:
    digest = await skill_digest(LocalBackend(tmp_path / "skills"), "deploy")
    await approve_tools(store, digest)
    backend = McpSkillsBackend(served.url)
    try:
        trust = TrustPolicy(approvals=store)
        catalog = SkillCatalog(backend, keep_bodies=keep_bodies, trust=trust)
        await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")
        log.take()
        await asyncio.to_thread(store.revoke, "deploy")  # withdrawn
        withdrawn = await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ()
        assert withdrawn.changed == ("deploy",)
        assert [(w.name, w.code) for w in withdrawn.warnings] == [("deploy", codes.FIELD_WITHHELD)]
        await approve_tools(store, digest)  # given again
        given = await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")
        assert given.changed == ("deploy",)
        assert given.warnings == ()
        same = await catalog.refresh()
        assert same.changed == ()
        assert same.unchanged == ("deploy", "pdf")
        assert log.take() == {"skills/list": 3}  # no SKILL.md read again
        assert (await catalog.get("deploy")).metadata.allowed_tools == ("Bash", "Read")
    finally:
        await backend.aclose()


async def test_origin_shows_in_locations_and_in_what_the_model_is_shown(
    backend: McpSkillsBackend,
) -> None:
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    skill = await catalog.get("pdf")
    assert skill.location == "mcp[team]:skill://pdf/SKILL.md"
    assert "<location>\nmcp[team]:skill://pdf/SKILL.md\n</location>" in catalog.to_prompt()


async def test_a_server_without_the_extension_fails_the_listing_not_the_catalog(
    served: ServedFolder, backend: McpSkillsBackend
) -> None:
    served.server.lowlevel.extensions.clear()
    report = await SkillCatalog(backend).refresh()
    assert report.failure is not None
    assert "does not offer the skills extension" in report.failure.message


async def test_an_unreachable_server_is_a_storage_error() -> None:
    backend = McpSkillsBackend("http://127.0.0.1:9/mcp", timeout=5)
    try:
        with pytest.raises(StorageError, match="cannot connect"):
            await backend.list()
    finally:
        await backend.aclose()


async def test_bad_entries_are_refused_one_by_one(
    served: ServedFolder, backend: McpSkillsBackend
) -> None:
    good = "sha256:" + "0" * 64
    bad_entries = [
        {"uri": "skill://daily/SKILL.md", "frontmatter": {"name": "daily"}, "resources": "dynamic"},
        {"uri": "skill://liar/SKILL.md", "frontmatter": {"name": "other"}, "resources": []},
        {
            "uri": "skill://escape/SKILL.md",
            "frontmatter": {"name": "escape"},
            "resources": [
                {"uri": "skill://escape/SKILL.md", "digest": good, "size": 1},
                {"uri": "skill://pdf/SKILL.md", "digest": good, "size": 1},
            ],
        },
        {"uri": "skill://nodigest/SKILL.md", "frontmatter": {"name": "nodigest"},
         "resources": [{"uri": "skill://nodigest/SKILL.md", "digest": "md5:x", "size": 1}]},
        {"uri": "skill://spelled/SKILL.md", "frontmatter": {"name": "spelled"},
         "resources": [{"uri": "skill://spelled/SKILL.md", "digest": good, "size": 1},
                       {"uri": "skill://spelled/a%0Ab.md", "digest": good, "size": 1}]},
        "not an object",
    ]  # fmt: skip

    async def add_bad_entries(ctx, call_next):  # type: ignore[no-untyped-def]
        result = await call_next(ctx)
        if ctx.method == "skills/list":
            result["skills"] = [*result["skills"], *bad_entries]
        return result

    served.server.lowlevel.middleware.append(add_bad_entries)
    report = await SkillCatalog(backend).refresh()
    assert report.added == ("deploy", "pdf")
    reasons = {problem.name: problem.message for problem in report.errors}
    assert "dynamic" in reasons["daily"]
    assert "frontmatter name must be 'liar'" in reasons["liar"]
    assert "outside the skill" in reasons["escape"]
    assert "no sha256 digest" in reasons["nodigest"]
    assert "control character in a file name: 'a\\nb.md'" in reasons["spelled"]
    assert "not an object" in reasons["entry-8"]  # the 8th entry of the listing


async def test_watch_follows_the_servers_list_changed_events(
    served: ServedFolder, backend: McpSkillsBackend
) -> None:
    catalog = SkillCatalog(backend)
    reports = catalog.watch(interval=3600)  # polling would never come in time: events must
    async with asyncio.timeout(30):
        first = await anext(reports)
        assert first.added == ("deploy", "pdf")
        await served.write("notes/SKILL.md", b"---\nname: notes\ndescription: Notes.\n---\nx\n")
        report = await anext(reports)
    await reports.aclose()
    assert report.added == ("notes",)


async def test_headers_reach_an_http_server(served: ServedFolder) -> None:
    seen: list[str | None] = []

    async def record(ctx, call_next):  # type: ignore[no-untyped-def]
        seen.append(ctx.request.headers.get("authorization") if ctx.request else None)
        return await call_next(ctx)

    served.server.lowlevel.middleware.append(record)
    backend = McpSkillsBackend(served.url, headers={"Authorization": "Bearer s3cret"})
    try:
        await backend.list()
    finally:
        await backend.aclose()
    assert set(seen) == {"Bearer s3cret"}


async def test_an_mcp_url_names_the_server_and_its_label() -> None:
    http = open_backend("mcp+https://host.example/mcp#team")
    stdio = McpSkillsBackend(["skillfs", "serve", "./my skills"])
    reopened = open_backend(stdio.url)
    async with http, stdio, reopened:  # nothing is connected: no request is made
        assert (http.location, getattr(http, "url", None)) == (
            "mcp[team]",
            "mcp+https://host.example/mcp#team",
        )
        assert stdio.url == "mcp+stdio://skillfs serve './my skills'"
        assert reopened.location == stdio.location  # the same server, the same label
    with pytest.raises(UnsupportedSourceError, match="names a server"):
        open_backend("mcp+stdio://")
