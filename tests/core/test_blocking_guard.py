"""The suite's guard really fails skillfs code that blocks the event loop.

Every async test runs under it (see conftest.py); these tests prove it is armed, so the
catalog and backend tests passing means their refreshes did no blocking I/O on the loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from blockbuster import BlockingError

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import SkillCatalog


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha" / "SKILL.md").write_bytes(skill_md("alpha"))
    return tmp_path


async def test_a_listing_done_on_the_loop_would_fail(skills_dir: Path) -> None:
    backend = LocalBackend(skills_dir)
    with pytest.raises(BlockingError):
        backend._scan()  # what list() must never do on the event loop


async def test_a_local_refresh_does_no_blocking_io_on_the_loop(skills_dir: Path) -> None:
    catalog = SkillCatalog(LocalBackend(skills_dir))
    report = await catalog.refresh()
    assert report.added == ("alpha",)
    assert (await catalog.get("alpha")).files
    assert await catalog.read_resource("alpha", "SKILL.md") == skill_md("alpha")
