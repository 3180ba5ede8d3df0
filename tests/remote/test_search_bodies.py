"""Ranked search over an S3 folder restored from a warm catalog cache, counted at the server.

The restart costs the listing only; the first search then GETs each SKILL.md once (the
catalog holds no bodies) and ranks exactly as a catalog holding them; later searches GET
nothing, and neither does the first search of the next process: the words of each body are
kept in the cache.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core._catalog.cache import CatalogCache
from skills_core.context import SelectionPolicy, search_index
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server

SKILLS = 20
FILLER = "Read the request, then follow the usual steps of this skill carefully. " * 40


def tree() -> dict[str, bytes]:
    return {
        f"skill-{i:02d}/SKILL.md": skill_md(
            f"skill-{i:02d}", "Helps.", f"{FILLER}\n{'quaternion ' * (i % 4)}topic{i} ledger\n"
        )
        for i in range(SKILLS)
    }


async def test_a_restored_s3_catalog_ranks_as_one_holding_bodies(
    s3_server: S3Server, s3_client: Any, bucket: str, tmp_path: Path
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    harness.put_tree(tree())
    cache = CatalogCache(tmp_path)
    held = SkillCatalog(harness.backend(), cache=cache)
    await held.refresh()  # the first process: holds every body it read
    log = s3_server.log
    log.reset()
    restored = SkillCatalog(harness.backend(), cache=cache)
    assert (await restored.refresh()).fetched == 0
    assert log.kinds() == {"LIST": math.ceil(SKILLS / 1000)}

    policy = SelectionPolicy(top_k=SKILLS)
    for query in ("quaternion", "topic7 ledger"):
        log.reset()
        found = await search_index(restored).search_async(query, policy)
        assert log.kinds() == ({"GET": SKILLS} if query == "quaternion" else {})
        expected = await search_index(held).search_async(query, policy)
        assert log.kinds() == ({"GET": SKILLS} if query == "quaternion" else {})
        assert [(m.name, m.score, m.strength) for m in found] == [
            (m.name, m.score, m.strength) for m in expected
        ]
    assert found[0].name == "skill-07"

    log.reset()
    later = SkillCatalog(harness.backend(), cache=CatalogCache(tmp_path))  # the next process
    assert (await later.refresh()).fetched == 0
    again = await search_index(later).search_async("topic7 ledger", policy)
    assert log.kinds() == {"LIST": math.ceil(SKILLS / 1000)}  # and no GET
    assert [(m.name, m.score) for m in again] == [(m.name, m.score) for m in expected]
