"""The collection shapes hold what they claim, the same through every backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import LocalBackend, MemoryBackend
from tests.collections.shapes import Collection, all_collections

COLLECTIONS = {collection.name: collection for collection in all_collections()}


@pytest.fixture(params=sorted(COLLECTIONS))
def collection(request: pytest.FixtureRequest) -> Collection:
    return COLLECTIONS[request.param]


def test_seven_collections_in_the_issues_order() -> None:
    assert [collection.repo for collection in all_collections()] == [
        "anthropics/skills",
        "vercel-labs/agent-skills",
        "obra/superpowers",
        "K-Dense-AI/claude-scientific-skills",
        "openai/skills",
        "UiPath/skills",
        "editframe/skills",
    ]


async def test_a_backend_finds_the_skill_folders(collection: Collection, tmp_path: Path) -> None:
    root = collection.write(tmp_path)
    local = [ref.name for ref in await LocalBackend(root).list()]
    memory = [ref.name for ref in await MemoryBackend(collection.skill_folders()).list()]
    assert local == memory == list(collection.skills)


async def test_bytes_are_the_same_on_disk_and_in_memory(
    collection: Collection, tmp_path: Path
) -> None:
    local = LocalBackend(collection.write(tmp_path))
    memory = MemoryBackend(collection.skill_folders())
    for name in collection.skills:
        files = [entry.path for entry in await local.files(name)]
        assert files == [entry.path for entry in await memory.files(name)]
        for path in files:
            limit = 1 << 20
            assert await local.read(name, path, max_bytes=limit) == await memory.read(
                name, path, max_bytes=limit
            )


def test_generated_trees_are_deterministic() -> None:
    assert [c.tree for c in all_collections()] == [c.tree for c in all_collections()]
