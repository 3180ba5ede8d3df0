"""A new server over a new catalog on the same persistent cache publishes every file's digest,
and each frontmatter as written, without reading a file; a file changed since is read alone
(reads counted at the backend)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client
from mcp.client import advertise

from backends import LocalBackend
from backends._digests import digest_of
from backends._mcp.extension import SKILLS_EXTENSION
from skills_core._catalog.cache import CatalogCache
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import SkillServer
from tests.mcp.client import list_skills
from tests.mcp.conftest import SKILLS, write_tree
from tests.mcp.test_entries_as_written import AS_WRITTEN, EXPECTED
from tests.support.backends import CountingBackend

pytestmark = pytest.mark.asyncio

TREE = {
    **SKILLS,
    "notes/SKILL.md": "---\nname: notes\ndescription: Takes notes. Use to note.\n---\n# Notes\n",
    "notes/references/style.md": "# Style\n",
    "forms/SKILL.md": AS_WRITTEN,
}
OTHER_FILES = sum(not path.endswith("/SKILL.md") for path in TREE)


async def published(root: Path, cache: CatalogCache) -> tuple[dict[str, str], CountingBackend]:
    """A new server's published digests by URI, and the backend that counted its reads.

    The ``forms`` entry's frontmatter is checked to be the file's, in every process.
    """
    backend = CountingBackend(LocalBackend(root))
    server = SkillServer(SkillCatalog(backend, cache=cache))
    try:
        await server.refresh()
        async with Client(server.lowlevel, extensions=[advertise(SKILLS_EXTENSION)]) as client:
            entries = await list_skills(client.session)
    finally:
        await server.aclose()
    assert {entry["uri"]: entry["frontmatter"] for entry in entries}["skill://forms/SKILL.md"] == (
        EXPECTED
    )
    digests = {item["uri"]: item["digest"] for entry in entries for item in entry["resources"]}
    return digests, backend


async def test_a_new_server_reads_no_file_and_a_changed_one_alone(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "skills", TREE)
    cache = CatalogCache(tmp_path / "cache")
    first, cold = await published(root, cache)
    assert len(cold.reads) == OTHER_FILES  # each file but the SKILL.md files, once
    assert len(first) == len(TREE)

    again, warm = await published(root, cache)
    assert (warm.fetched, warm.reads) == ([], [])
    assert again == first

    changed = b"# Forms\n\nField names are case-insensitive now.\n"
    await asyncio.to_thread((root / "pdf/references/forms.md").write_bytes, changed)
    after, edited = await published(root, cache)
    assert edited.reads == [("pdf", "references/forms.md")]
    assert after == {**first, "skill://pdf/references/forms.md": digest_of(changed)}
