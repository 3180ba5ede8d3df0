"""get() serves each skill's file list from memory until the next refresh, never staler."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from backends import FileEntry, LocalBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog
from tests.backends.harnesses import LocalHarness


class CountingLocalBackend(LocalBackend):
    """A LocalBackend that counts the folder walks it is asked for."""

    walks = 0

    async def files(self, name: str) -> Sequence[FileEntry]:
        self.walks += 1
        return await super().files(name)


def paths_and_sizes(files: Sequence[FileEntry]) -> dict[str, int]:
    return {entry.path: entry.size for entry in files}


async def test_a_folder_is_walked_once_per_refresh(tmp_path: Path) -> None:
    await LocalHarness(tmp_path).make_backend(
        {"pdf/SKILL.md": skill_md("pdf"), "pdf/references/a.md": b"a"}
    )
    backend = CountingLocalBackend(tmp_path)
    catalog = SkillCatalog(backend)
    await catalog.refresh()

    first = await catalog.get("pdf")
    for _ in range(5):
        assert (await catalog.get("pdf")).files == first.files
    assert backend.walks == 1

    await catalog.refresh()  # nothing changed: the next get() walks again all the same
    await catalog.get("pdf")
    await catalog.get("pdf")
    assert backend.walks == 2


async def test_a_changed_resource_shows_after_the_next_refresh(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    catalog = SkillCatalog(
        await harness.make_backend(
            {
                "pdf/SKILL.md": skill_md("pdf"),
                "pdf/references/kept.md": b"12345",
                "pdf/references/gone.md": b"bye",
            }
        )
    )
    await catalog.refresh()
    before = await catalog.get("pdf")
    assert paths_and_sizes(before.files) == {
        "SKILL.md": len(skill_md("pdf")),
        "references/gone.md": 3,
        "references/kept.md": 5,
    }

    (tmp_path / "pdf/references/kept.md").write_bytes(b"54321")  # in place, same size
    (tmp_path / "pdf/references/gone.md").unlink()
    await harness.write("pdf/scripts/new.py", b"print('new')\n")
    # The content is read as it is now, even before the refresh.
    assert await catalog.read_resource("pdf", "references/kept.md") == b"54321"

    report = await catalog.refresh()
    assert not report.has_changes  # SKILL.md did not change...
    after = await catalog.get("pdf")  # ...but the file list is listed again
    assert paths_and_sizes(after.files) == {
        "SKILL.md": len(skill_md("pdf")),
        "references/kept.md": 5,
        "scripts/new.py": 13,
    }
    kept = {entry.path: entry.fingerprint for entry in after.files}["references/kept.md"]
    assert kept != {entry.path: entry.fingerprint for entry in before.files}["references/kept.md"]


class PausingMemoryBackend(MemoryBackend):
    """A MemoryBackend whose file listing waits until told to go on."""

    def __init__(self) -> None:
        super().__init__({"pdf": {"SKILL.md": skill_md("pdf"), "a.md": b"a"}})
        self.listing = asyncio.Event()
        self.go_on = asyncio.Event()

    async def files(self, name: str) -> Sequence[FileEntry]:
        files = await super().files(name)
        self.listing.set()
        await self.go_on.wait()
        return files


async def test_a_list_taken_before_a_refresh_is_not_kept_after_it() -> None:
    backend = PausingMemoryBackend()
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    slow_get = asyncio.create_task(catalog.get("pdf"))
    await backend.listing.wait()  # listed the old files, not yet returned

    backend.put("pdf", {"SKILL.md": skill_md("pdf"), "a.md": b"a", "b.md": b"b"})
    await catalog.refresh()
    backend.go_on.set()
    assert [entry.path for entry in (await slow_get).files] == ["SKILL.md", "a.md"]
    # That old list was not kept: the next get() lists the files as they are now.
    assert [entry.path for entry in (await catalog.get("pdf")).files] == [
        "SKILL.md",
        "a.md",
        "b.md",
    ]
