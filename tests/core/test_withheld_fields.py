"""A backend reports where skills come from (MCP): the catalog's trust policy withholds fields."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from backends import CompositeBackend, MemoryBackend
from backends.capabilities import MCP, Provenance, provenance_of
from backends.testing import skill_md
from skills_core import ApprovalStore, TrustPolicy
from skills_core import _codes as codes
from skills_core._catalog.catalog import SkillCatalog

GRANTING = (
    "---\nname: deploy\ndescription: Deploys.\nallowed-tools: Bash Read\nlicense: MIT\n---\nGo.\n"
)


class UntrustedMemory(MemoryBackend):
    """Reports every skill as served over MCP, its content known by :func:`content_of`."""

    def __init__(self) -> None:
        super().__init__(
            {
                "deploy": {"SKILL.md": GRANTING},
                "plain": {
                    "SKILL.md": GRANTING.replace("name: deploy", "name: plain").replace(
                        "allowed-tools: Bash Read\n", ""
                    )
                },
            }
        )

    def provenance(self, name: str) -> Provenance:
        return Provenance(MCP, content_of(name))


def content_of(name: str) -> str:
    return "sha256:" + hashlib.sha256(name.encode()).hexdigest()


async def approve(store: ApprovalStore, name: str) -> None:
    await asyncio.to_thread(store.approve, content_of(name), name=name, source="test", tools=True)


@pytest.fixture
def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(tmp_path)


async def test_withheld_field_is_reset_with_a_warning() -> None:
    catalog = SkillCatalog(UntrustedMemory())
    report = await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()
    assert catalog.metadata("deploy").license == "MIT"  # only the withheld field goes
    assert [(w.name, w.code) for w in report.warnings] == [("deploy", codes.FIELD_WITHHELD)]
    reason = "allowed-tools is ignored: skills served over MCP grant no tools unless approved"
    assert report.warnings[0].message == reason
    assert "allowed-tools" not in catalog.metadata("deploy").to_frontmatter()


async def test_approved_skill_keeps_its_grant(store: ApprovalStore) -> None:
    await approve(store, "deploy")
    catalog = SkillCatalog(UntrustedMemory(), trust=TrustPolicy(approvals=store))
    report = await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")
    assert report.warnings == ()


async def test_a_skill_without_the_field_gets_no_warning_and_stays_reused() -> None:
    backend = UntrustedMemory()
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    first = catalog.snapshot.entries["deploy"]
    again = await catalog.refresh()
    assert again.unchanged == ("deploy", "plain")
    assert catalog.snapshot.entries["deploy"] is first
    assert [w.name for w in catalog.warnings] == ["deploy"]


class CountingMemory(MemoryBackend):
    """Reports nothing, and counts how often its ``provenance`` is looked up."""

    lookups = 0

    @property
    def provenance(self) -> Callable[[str], Provenance | None]:
        CountingMemory.lookups += 1
        return lambda name: None


async def test_the_ability_is_looked_up_once_per_catalog_not_once_per_skill() -> None:
    backend = CountingMemory(
        {f"skill-{n}": {"SKILL.md": skill_md(f"skill-{n}")} for n in range(50)}
    )
    catalog = SkillCatalog(backend)
    asked = CountingMemory.lookups
    report = await catalog.refresh()
    assert len(report.added) == 50
    backend.put("skill-7", {"SKILL.md": skill_md("skill-7", "Edited.")})
    assert (await catalog.refresh()).changed == ("skill-7",)
    assert CountingMemory.lookups == asked  # none per skill, none per refresh


async def test_a_composite_withholds_what_its_untrusted_member_withholds() -> None:
    trusted = MemoryBackend(
        {"local": {"SKILL.md": GRANTING.replace("name: deploy", "name: local")}}
    )
    catalog = SkillCatalog(CompositeBackend([trusted, UntrustedMemory()]))
    report = await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()  # an MCP member's grant, unapproved
    assert catalog.metadata("local").allowed_tools == ("Bash", "Read")  # a trusted member's
    assert [(w.name, w.code) for w in report.warnings] == [("deploy", codes.FIELD_WITHHELD)]


async def test_an_approval_given_since_shows_when_the_file_is_touched_unchanged(
    store: ApprovalStore,
) -> None:
    backend = UntrustedMemory()
    catalog = SkillCatalog(backend, trust=TrustPolicy(approvals=store))
    await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()
    await approve(store, "deploy")
    backend.put("deploy", {"SKILL.md": GRANTING})  # the same bytes, a new version
    report = await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")
    assert not [w for w in report.warnings if w.code == codes.FIELD_WITHHELD]


def test_a_composite_of_trusted_members_withholds_nothing_so_catalogs_skip_the_check() -> None:
    assert provenance_of(CompositeBackend([MemoryBackend(), MemoryBackend()])) is None
    assert provenance_of(CompositeBackend([MemoryBackend(), UntrustedMemory()]))
