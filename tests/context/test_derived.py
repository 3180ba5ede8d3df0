"""Values derived per skill: a bulk derive runs without the cyclic collector's pauses."""

from __future__ import annotations

import gc

from skills_core._catalog.entries import CatalogEntry
from skills_core._format.models import SkillMetadata
from skills_core.context._derived import DerivedSkills
from tests.context.catalogs import catalog_of, skill


def containers(
    name: str, entry: CatalogEntry, metadata: SkillMetadata, body: bytes
) -> list[list[str]]:
    """A value of 200 containers, as a skill's counts and lists are."""
    return [[name] for _ in range(200)]


async def test_a_bulk_derive_sets_off_no_collection_and_leaves_the_collector_on() -> None:
    catalog = await catalog_of(
        {f"s{i:04d}": skill(f"s{i:04d}", "A skill.", "Body.") for i in range(500)}
    )
    derived = DerivedSkills(catalog, containers)
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        assert len(derived.values()) == 500  # 100,000 containers made
    finally:
        gc.callbacks.remove(count)
    assert collections == []
    assert gc.isenabled()
