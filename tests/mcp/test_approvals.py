"""Approvals stored by content decide which MCP skills' ``allowed-tools`` take effect."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from google.adk.tools import FunctionTool

from backends import LocalBackend
from backends._digests import skill_digest
from backends._mcp.backend import McpSkillsBackend
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog
from skills_core._trust.approvals import ApprovalStore
from skills_core._trust.policy import TrustPolicy
from skills_core.adk import ACTIVE_SKILL_KEY, SkillToolGuard
from tests.mcp.harness import ServedFolder

pytestmark = pytest.mark.asyncio


async def test_an_approval_stored_from_the_folder_applies_to_the_same_content_over_mcp(
    served: ServedFolder, tmp_path: Path
) -> None:
    store = await asyncio.to_thread(ApprovalStore, tmp_path / "cache")
    backend = McpSkillsBackend(served.url)
    try:
        catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
        report = await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ()
        assert [(w.name, w.code) for w in report.warnings] == [("deploy", codes.FIELD_WITHHELD)]

        digest = await skill_digest(LocalBackend(tmp_path / "skills"), "deploy")
        await asyncio.to_thread(store.approve, digest, name="deploy", source=".", tools=True)
        await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")

        await served.write("deploy/scripts/ship.sh", b"echo shipped elsewhere\n")  # new content
        changed = await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ()
        assert [(w.name, w.code) for w in changed.warnings] == [("deploy", codes.FIELD_WITHHELD)]
    finally:
        await backend.aclose()


async def test_only_a_tools_approval_grants_tools(served: ServedFolder, tmp_path: Path) -> None:
    store = await asyncio.to_thread(ApprovalStore, tmp_path / "cache")
    digest = await skill_digest(LocalBackend(tmp_path / "skills"), "deploy")
    await asyncio.to_thread(store.approve, digest, name="deploy", source=".", scripts=True)
    async with McpSkillsBackend(served.url) as backend:
        catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
        await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ()


async def test_a_withheld_restriction_still_restricts(served: ServedFolder) -> None:
    async with McpSkillsBackend(served.url) as backend:
        catalog = SkillCatalog(backend)
        await catalog.refresh()
        assert catalog.metadata("deploy").allowed_tools == ()  # grants nothing
        assert catalog.restricting_tools("deploy") == ("Bash", "Read")

        async def write_file(path: str) -> dict[str, Any]:
            """Writes a file."""
            return {}

        guard = SkillToolGuard(catalog)
        state = {ACTIVE_SKILL_KEY: "deploy"}
        refusal = guard.refusal(FunctionTool(write_file), {"path": "x"}, state)
        assert refusal is not None
        assert refusal["error"] == (
            "the active skill 'deploy' does not permit calling 'write_file'; it allows: Bash, Read"
        )
        assert refusal["error_code"] == codes.TOOL_NOT_PERMITTED
        assert guard.refusal(FunctionTool(write_file), {}, {ACTIVE_SKILL_KEY: "pdf"}) is None
