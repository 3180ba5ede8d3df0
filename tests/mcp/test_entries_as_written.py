"""Each entry's ``frontmatter`` is the SKILL.md's, as a YAML 1.2 reader reads the file (the
final text's MUST, and what the conformance suite compares), not the catalog's typed metadata;
a frontmatter JSON cannot carry as written keeps its skill out of the extension, with the reason.
skillfs's own host loads every skill written in any form (:mod:`tests.mcp.suite_fixtures`).
"""

from __future__ import annotations

from pathlib import Path

from backends import LocalBackend
from backends._mcp.extension import ListSkillsParams, ListSkillsRequest, ListSkillsResult
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import LEFT_OUT_META, SkillServer
from tests.mcp.client import get_skill, list_skills
from tests.mcp.conftest import write_tree
from tests.mcp.harness import ServedFolder
from tests.mcp.suite_fixtures import SKILLS
from tests.mcp.test_server import connect

AS_WRITTEN = """---
name: forms
description: Reviews forms. Use when a form changes.
allowed-tools: Read, Grep
tags: forms, review
created: 2024-01-05
beta: yes
version: 0755
metadata:
  team: tools
  owners: [ana, bo]
---
# Forms
"""
EXPECTED = {
    "name": "forms",
    "description": "Reviews forms. Use when a form changes.",
    "allowed-tools": "Read, Grep",  # main: "Read Grep", joined
    "tags": "forms, review",  # main: ["forms", "review"]
    "created": "2024-01-05",  # a string to YAML 1.2 (and the file's own text)
    "beta": "yes",  # main: true (YAML 1.1)
    "version": 755,  # main: 493 (YAML 1.1 octal)
    "metadata": {"team": "tools", "owners": ["ana", "bo"]},  # main: "['ana', 'bo']"
}
TREE = {
    "forms/SKILL.md": AS_WRITTEN,
    "listed/SKILL.md": "---\nname: listed\ndescription: d\nallowed-tools:\n  - Bash\n  - Read\n"
    "---\nx\n",
    "odd/SKILL.md": "---\nname: odd\ndescription: d\nratio: .inf\n---\nx\n",
}


async def test_entries_carry_the_frontmatter_as_the_file_writes_it(tmp_path: Path) -> None:
    server = SkillServer(SkillCatalog(LocalBackend(write_tree(tmp_path, TREE))))
    await server.refresh()
    try:
        async with connect(server) as client:
            forms, listed = await list_skills(client.session)
            fetched = await get_skill(client.session, "skill://forms/SKILL.md")
            page = await client.session.send_request(
                ListSkillsRequest(params=ListSkillsParams()), ListSkillsResult
            )
    finally:
        await server.aclose()
    assert forms["frontmatter"] == EXPECTED
    assert fetched["frontmatter"] == EXPECTED
    assert listed["frontmatter"]["allowed-tools"] == ["Bash", "Read"]  # main: "Bash Read"
    assert page.meta is not None
    (odd,) = page.meta[LEFT_OUT_META]
    assert odd == {
        "name": "odd",
        "reason": "its frontmatter has no JSON form identical to the file's: "
        "the frontmatter holds inf, which JSON cannot carry as YAML reads it",
    }


async def test_skillfs_hosts_load_every_form_skillfs_serves(tmp_path: Path) -> None:
    served = ServedFolder(tmp_path / "served")
    tree = {
        f"{name}/{path}": data.encode() if isinstance(data, str) else data
        for name, files in SKILLS.items()
        for path, data in files.items()
    }
    backend = await served.make_backend(tree)
    try:
        catalog = SkillCatalog(backend)
        await catalog.refresh()
        loaded = {name: await catalog.get(name) for name in SKILLS}  # each SKILL.md verified
    finally:
        await backend.aclose()
        await served.close()
    assert catalog.errors == ()
    assert all(skill.body.startswith("# ") for skill in loaded.values())
