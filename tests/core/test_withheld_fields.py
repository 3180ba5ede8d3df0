"""A backend can withhold frontmatter fields (MCP skills' allowed-tools): the catalog obeys."""

from __future__ import annotations

from collections.abc import Mapping

from backends import MemoryBackend
from skills_core import codes
from skills_core.catalog.catalog import SkillCatalog

GRANTING = (
    "---\nname: deploy\ndescription: Deploys.\nallowed-tools: Bash Read\nlicense: MIT\n---\nGo.\n"
)


class UntrustedMemory(MemoryBackend):
    """Withholds allowed-tools of every skill not in ``approved``."""

    def __init__(self, approved: set[str]) -> None:
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
        self.approved = approved

    def withheld_fields(self, name: str) -> Mapping[str, str]:
        if name in self.approved:
            return {}
        return {"allowed-tools": "not approved for this origin"}


async def test_withheld_field_is_reset_with_a_warning() -> None:
    catalog = SkillCatalog(UntrustedMemory(approved=set()))
    report = await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ()
    assert catalog.metadata("deploy").license == "MIT"  # only the withheld field goes
    assert [(w.name, w.code) for w in report.warnings] == [("deploy", codes.FIELD_WITHHELD)]
    assert "allowed-tools is ignored: not approved" in report.warnings[0].message
    assert "allowed-tools" not in catalog.metadata("deploy").to_frontmatter()


async def test_approved_skill_keeps_its_grant() -> None:
    catalog = SkillCatalog(UntrustedMemory(approved={"deploy"}))
    report = await catalog.refresh()
    assert catalog.metadata("deploy").allowed_tools == ("Bash", "Read")
    assert report.warnings == ()


async def test_a_skill_without_the_field_gets_no_warning_and_stays_reused() -> None:
    backend = UntrustedMemory(approved=set())
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    first = catalog.snapshot.entries["deploy"]
    again = await catalog.refresh()
    assert again.unchanged == ("deploy", "plain")
    assert catalog.snapshot.entries["deploy"] is first
    assert [w.name for w in catalog.warnings] == ["deploy"]
