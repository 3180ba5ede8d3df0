"""The lock's behaviour on one backend: subclass :class:`LockConformance` with a ``harness``.

Every case stores the canonical tree, locks what a catalog serves, changes the storage, and
asserts what a catalog built with the lock serves afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from backends import Backend
from backends.testing import CANONICAL_TREE, BackendHarness, skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._catalog.catalog import lock_of
from skills_core._errors import LockMismatchError
from skills_core._trust.lock import SkillLock
from skills_core._trust.policy import TrustPolicy


async def locked_catalog(backend: Backend, lock: SkillLock) -> SkillCatalog:
    catalog = SkillCatalog(backend, trust=TrustPolicy(lock=lock))
    await catalog.refresh()
    return catalog


def codes_by_name(catalog: SkillCatalog) -> dict[str | None, str]:
    return {problem.name: problem.code for problem in catalog.errors}


@pytest.mark.asyncio
class LockConformance:
    @pytest_asyncio.fixture
    async def backend(self, harness: BackendHarness) -> AsyncIterator[Backend]:
        async with await harness.make_backend(CANONICAL_TREE) as backend:
            yield backend

    @pytest_asyncio.fixture
    async def lock(self, backend: Backend) -> SkillLock:
        catalog = SkillCatalog(backend)
        await catalog.refresh()
        return await lock_of(catalog)

    async def test_the_lock_pins_every_file_and_serves_all(
        self, backend: Backend, lock: SkillLock
    ) -> None:
        assert sorted(lock.skills) == ["alpha", "beta", "gamma"]
        assert "scripts/run.py" in lock.skills["alpha"].files
        assert SkillLock.parse(lock.dumps()) == lock
        catalog = await locked_catalog(backend, lock)
        assert [meta.name for meta in catalog.list()] == ["alpha", "beta", "gamma"]
        assert not catalog.errors
        assert await catalog.read_resource("alpha", "scripts/run.py") == b"print('alpha')\n"

    async def test_a_changed_resource_is_refused_when_read(
        self, harness: BackendHarness, backend: Backend, lock: SkillLock
    ) -> None:
        await harness.write("alpha/scripts/run.py", b"print('swapped')\n")
        catalog = await locked_catalog(backend, lock)
        with pytest.raises(LockMismatchError, match=r"scripts/run\.py differs from the lock"):
            await catalog.read_resource("alpha", "scripts/run.py")
        assert await catalog.read_resource("alpha", "references/guide.md")

    async def test_a_changed_skill_md_is_refused_or_kept_as_locked(
        self, harness: BackendHarness, backend: Backend, lock: SkillLock
    ) -> None:
        running = await locked_catalog(backend, lock)
        await harness.write("beta/SKILL.md", skill_md("beta", "Now does something else."))
        fresh = await locked_catalog(backend, lock)
        assert "beta" not in fresh
        assert codes_by_name(fresh) == {"beta": codes.LOCK_MISMATCH}
        assert "SKILL.md differs from the lock" in fresh.errors[0].message
        await running.refresh()  # holds the locked bytes: keeps serving them
        assert running.metadata("beta").description == "A canonical test skill."
        assert codes_by_name(running) == {"beta": codes.LOCK_MISMATCH}
        assert running.errors[0].message.endswith("still serving the locked version")

    async def test_added_and_removed_skills_are_reported(
        self, harness: BackendHarness, backend: Backend, lock: SkillLock
    ) -> None:
        await harness.write("delta/SKILL.md", skill_md("delta"))
        await harness.delete_skill("beta")
        catalog = await locked_catalog(backend, lock)
        assert [meta.name for meta in catalog.list()] == ["alpha", "gamma"]
        assert codes_by_name(catalog) == {"delta": codes.NOT_LOCKED, "beta": codes.LOCK_MISSING}
