"""The <available_skills> block equals what skills-ref and google-adk emit."""

from __future__ import annotations

from pathlib import Path

from google.adk.skills import Frontmatter
from google.adk.skills.prompt import format_skills_as_xml
from skills_ref.prompt import to_prompt as skills_ref_to_prompt

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog

DESCRIPTIONS = {
    "alpha": "Use for <tags> & \"quotes\" & 'apostrophes'",
    "beta": "Plain description.",
}


async def test_prompt_matches_skills_ref_and_adk(tmp_path: Path) -> None:
    for name, description in DESCRIPTIONS.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_bytes(
            skill_md(name, "'" + description.replace("'", "''") + "'")
        )
    catalog = SkillCatalog(LocalBackend(tmp_path))
    await catalog.refresh()

    with_locations = catalog.to_prompt()
    assert with_locations == skills_ref_to_prompt([tmp_path / name for name in DESCRIPTIONS])
    assert "&lt;tags&gt; &amp; &quot;quotes&quot;" in with_locations

    adk_frontmatters = [
        Frontmatter(name=name, description=description)
        for name, description in DESCRIPTIONS.items()
    ]
    assert catalog.to_prompt(include_location=False) == format_skills_as_xml(adk_frontmatters)


async def test_empty_catalog_prompt() -> None:
    from backends import MemoryBackend

    catalog = SkillCatalog(MemoryBackend())
    await catalog.refresh()
    assert catalog.to_prompt() == "<available_skills>\n</available_skills>"
