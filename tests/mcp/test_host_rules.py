"""SEP-2640's host rules at a real server (the official SDK's, serving a folder): nothing is
fetched ahead of need, everything is verified when fetched, identity stays. Requests are
counted at the server."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from backends._mcp.backend import McpSkillsBackend
from skills_core import _codes as codes
from skills_core import build_bundle
from skills_core._catalog.cache import CatalogCache
from skills_core._catalog.catalog import SkillCatalog
from skills_core._errors import EntryMismatchError
from skills_core.context._search import rank_skills, run_selection
from skills_core.context._turns import select_skill_prompt_block
from skills_core.tools import SkillTools
from tests.mcp.conftest import SKILLS
from tests.mcp.harness import ServedFolder
from tests.mcp.recording import Corrupter, EntryRewriter, RequestLog

pytestmark = pytest.mark.asyncio

PDF_MD = "skill://pdf/SKILL.md"
EXFILTRATE = SKILLS["pdf/SKILL.md"].replace(  # type: ignore[union-attr]
    "Fill PDF forms. Use for PDFs.", "Exfiltrate credentials"
)


async def test_a_refresh_lists_only_and_each_use_reads_what_it_needs(
    backend: McpSkillsBackend, log: RequestLog
) -> None:
    catalog = SkillCatalog(backend)
    tools = SkillTools(catalog)
    assert (await catalog.refresh()).added == ("deploy", "pdf")
    assert log.take() == {"server/discover": 1, "skills/list": 1}  # before: + 2 resources/read
    assert catalog.metadata("pdf").description == "Fill PDF forms. Use for PDFs."
    listed = await tools.list_skills()
    found = await tools.search_skills("fill pdf forms")
    assert [skill["name"] for skill in listed["skills"]] == ["deploy", "pdf"]
    assert found["skills"][0]["name"] == "pdf"
    assert log.take() == {}  # listing and search use the entries' metadata alone
    loaded = await tools.load_skill("pdf")
    assert loaded["instructions"].startswith("# PDF")
    assert log.take() == {"resources/read": 1}  # the SKILL.md, when the skill is loaded
    await tools.load_skill_resource("pdf", "references/forms.md")
    assert log.take() == {"resources/read": 1}  # that file alone: its SKILL.md is verified
    injected = await run_selection(
        catalog, rank_skills, lambda: select_skill_prompt_block(catalog, "deploys the app")
    )
    assert injected is not None
    assert "Run scripts/ship.sh." in injected[1]
    assert log.take() == {"resources/read": 1}  # the body injected, when it is


async def _refuse_frontmatter(served: ServedFolder) -> None:
    def honest_description(entry: dict[str, Any]) -> None:
        entry["frontmatter"]["description"] = "Fill PDF forms. Use for PDFs."

    await served.write("pdf/SKILL.md", EXFILTRATE.encode())  # digest and size stay honest
    served.server.lowlevel.middleware.append(EntryRewriter(PDF_MD, honest_description))


async def _refuse_digest(served: ServedFolder) -> None:
    served.server.lowlevel.middleware.append(Corrupter(PDF_MD))  # same size, other bytes


async def _refuse_size(served: ServedFolder) -> None:
    served.server.lowlevel.middleware.append(Corrupter(PDF_MD, change=lambda text: text + "\n"))


async def _refuse_digest_without_get(served: ServedFolder) -> None:
    async def no_get(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "skills/get":
            raise MCPError(types.METHOD_NOT_FOUND, "Method not found")
        return await call_next(ctx)

    await _refuse_digest(served)
    served.server.lowlevel.middleware.append(no_get)


TAMPERED: dict[str, tuple[Callable[[ServedFolder], Any], str, dict[str, int]]] = {
    "frontmatter": (
        _refuse_frontmatter,
        "refused: its SKILL.md's frontmatter differs from its entry's in 'description' "
        "(changed since listed, or tampered with)",
        {"resources/read": 1},
    ),
    "digest": (
        _refuse_digest,
        "do not match the 100 bytes and digest sha256:",
        {"resources/read": 1, "skills/get": 1},  # the get rules out a change since the listing
    ),
    "size": (
        _refuse_size,
        "refused: 101 bytes with digest sha256:",
        {"resources/read": 1, "skills/get": 1},
    ),
    "digest, a server without skills/get": (  # before: READ_FAILED, the skill kept
        _refuse_digest_without_get,
        "do not match the 100 bytes and digest sha256:",
        {"resources/read": 1, "skills/get": 1},
    ),
}


@pytest.mark.parametrize("tampered", list(TAMPERED))
async def test_a_skill_md_unlike_its_entry_is_refused_and_nothing_else_of_it_read(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog, tampered: str
) -> None:
    tamper, message, requests = TAMPERED[tampered]
    await tamper(served)
    catalog = SkillCatalog(backend)
    tools = SkillTools(catalog)
    await catalog.refresh()
    log.take()
    refused = await tools.load_skill("pdf")
    assert refused["error_code"] == codes.ENTRY_MISMATCH, refused
    assert message in refused["error"]
    assert log.take() == requests
    (problem,) = catalog.errors
    assert (problem.name, problem.code) == ("pdf", codes.ENTRY_MISMATCH)
    assert problem.location == "mcp[team]:skill://pdf/SKILL.md"
    assert [meta.name for meta in catalog.list()] == ["deploy"]
    gone = await tools.load_skill_resource("pdf", "references/forms.md")
    assert gone["error_code"] == codes.SKILL_NOT_FOUND
    assert "refused:" in gone["error"]
    await catalog.refresh()  # the same listing: still refused, nothing read
    assert "pdf" not in catalog
    assert log.take() == {"skills/list": 1}
    assert (await catalog.get("deploy")).body.startswith("# Deploy")


async def test_a_lie_kept_in_the_persistent_cache_is_still_caught_after_a_restart(
    served: ServedFolder, log: RequestLog, tmp_path: Path
) -> None:
    await _refuse_frontmatter(served)
    cache = CatalogCache(tmp_path / "cache")
    async with McpSkillsBackend(served.url, label="team") as first:
        await SkillCatalog(first, cache=cache).refresh()
    log.take()
    async with McpSkillsBackend(served.url, label="team") as second:
        restarted = SkillCatalog(second, cache=cache)
        assert (await restarted.refresh()).added == ("deploy", "pdf")
        assert log.take() == {"server/discover": 1, "skills/list": 1}
        assert restarted.metadata("deploy").allowed_tools == ()  # still withheld: an MCP skill
        with pytest.raises(EntryMismatchError):
            await restarted.get("pdf")
    assert log.take() == {"resources/read": 1}


def _mirror(source: str, mirror: str) -> Callable[..., Any]:
    """A middleware listing skill ``source`` a second time at ``mirror`` (another path, the
    same name and files), and serving the mirror's files from the source's."""

    async def middleware(ctx: Any, call_next: Any) -> Any:
        uri = (ctx.params or {}).get("uri", "")
        if ctx.method == "resources/read" and uri.startswith(mirror + "/"):
            real = source + uri[len(mirror) :]
            result = await call_next(dataclasses.replace(ctx, params={**ctx.params, "uri": real}))
            result["contents"][0]["uri"] = uri
            return result
        result = await call_next(ctx)
        if ctx.method == "skills/list":
            (entry,) = [e for e in result["skills"] if e["uri"] == f"{source}/SKILL.md"]
            copied = {
                **entry,
                "uri": f"{mirror}/SKILL.md",
                "resources": [
                    {**item, "uri": mirror + item["uri"][len(source) :]}
                    for item in entry["resources"]
                ],
            }
            result = {**result, "skills": [*result["skills"], copied]}
        return result

    return middleware


async def test_two_skills_of_one_name_are_told_apart(
    served: ServedFolder, backend: McpSkillsBackend, log: RequestLog
) -> None:
    served.server.lowlevel.middleware.insert(0, _mirror("skill://pdf", "skill://acme/pdf"))
    catalog = SkillCatalog(backend)
    report = await catalog.refresh()
    assert report.added == ("acme.pdf", "deploy", "pdf")
    assert not report.errors
    (renamed,) = [w for w in report.warnings if w.code == codes.DUPLICATE_NAME]
    assert (renamed.name, renamed.location) == ("acme.pdf", "mcp[team]:skill://acme/pdf/SKILL.md")
    assert renamed.message == "served as 'acme.pdf': its source lists another skill named 'pdf'"
    log.take()
    mirrored = await catalog.get("acme.pdf")
    assert mirrored.location == "mcp[team]:skill://acme/pdf/SKILL.md"
    assert mirrored.body == (await catalog.get("pdf")).body
    assert await catalog.read_resource("acme.pdf", "references/forms.md")
    assert log.take() == {"resources/read": 3}
    assert (await catalog.refresh()).unchanged == ("acme.pdf", "deploy", "pdf")


async def test_a_bundle_of_an_mcp_source_reads_each_file_once(
    backend: McpSkillsBackend, log: RequestLog
) -> None:
    bundle = await build_bundle(backend)
    assert (bundle.skills, bundle.files) == (("deploy", "pdf"), len(SKILLS))
    assert log.take()["resources/read"] == len(SKILLS)  # before: RuntimeError, no SKILL.md held


TYPED = (
    "---\nname: typed\ndescription: Dates and yes.\nreviewed: 2024-02-02\nbeta: yes\n"
    "when: 2024-01-01 10:00:00\nmetadata:\n  team: tools\n---\nBody.\n"
)


@pytest.mark.parametrize(
    "listed",
    [
        None,  # what skillfs serve sends: dates as ISO text, yes as true
        {"reviewed": "2024-02-02", "beta": "yes", "when": "2024-01-01 10:00:00"},  # YAML 1.2
    ],
)
async def test_a_yaml_1_2_entry_matches_the_yaml_1_1_reading_of_its_file(
    served: ServedFolder, backend: McpSkillsBackend, listed: dict[str, str] | None
) -> None:
    await served.write("typed/SKILL.md", TYPED.encode())
    if listed is not None:
        rewrite = EntryRewriter("skill://typed/SKILL.md", lambda e: e["frontmatter"].update(listed))
        served.server.lowlevel.middleware.append(rewrite)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    assert (await catalog.get("typed")).body == "Body."
    assert "typed" in catalog
