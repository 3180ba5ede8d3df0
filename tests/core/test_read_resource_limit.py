"""SkillCatalog.read_resource accepts a per-call size limit tighter than the catalog's."""

from __future__ import annotations

import pytest

from backends import DEFAULT_LIMITS, LimitExceededError, Limits, MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog


async def test_per_call_limit_refuses_larger_files() -> None:
    backend = MemoryBackend({"alpha": {"SKILL.md": skill_md("alpha"), "data.txt": b"x" * 100}})
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    assert await catalog.read_resource("alpha", "data.txt", max_bytes=100) == b"x" * 100
    with pytest.raises(LimitExceededError):
        await catalog.read_resource("alpha", "data.txt", max_bytes=99)


async def test_per_call_limit_never_loosens_the_catalog_limit() -> None:
    backend = MemoryBackend({"alpha": {"SKILL.md": skill_md("alpha"), "data.txt": b"x" * 100}})
    catalog = SkillCatalog(backend, limits=Limits(max_read_bytes=50))
    await catalog.refresh()
    assert DEFAULT_LIMITS.max_read_bytes > 100
    with pytest.raises(LimitExceededError):
        await catalog.read_resource("alpha", "data.txt", max_bytes=1000)
