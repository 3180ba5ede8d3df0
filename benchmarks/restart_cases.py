"""A new process's first refresh with a warm catalog cache, run as a child by
:mod:`benchmarks.bench_restart`.

Run by path (``python benchmarks/restart_cases.py ROOT CACHE REPEATS``) with ``PYTHONPATH``
set to the checkout. After one untimed cold load that fills the cache folder ``CACHE``, times
``REPEATS`` of each, in CPU seconds (``time.process_time``, worker threads included) and wall
seconds:

- ``cold``: a new catalog's first refresh without a cache;
- ``coldsave``: the same, saving what it learned to an empty cache folder;
- ``warm``: a new catalog's first refresh through a newly opened cache (what a new process
  does after its imports: a new connection, the entries decoded, list + stat, no read);
- ``nochange``: a refresh of a loaded catalog when nothing changed;
- ``searchheld``: the first ranked search of a refreshed catalog holding its bodies (no cache:
  the index is built from the bodies in memory);
- ``searchsave``: the same, of a cold catalog saving to an empty cache (the index also makes
  each body's words and keeps them in the cache);
- ``searchwarm``: the first ranked search of a new catalog refreshed from a newly opened warm
  cache that keeps the bodies' words (no SKILL.md read);
- ``searchagain``: the same search again, the index built.

The refresh before a first search is not timed. Prints ``{"cold": [[cpu, wall], ...],
"coldsave": [...], ...}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable

from backends import LocalBackend
from skills_core import CatalogCache, SkillCatalog
from skills_core.context import search_index

QUERY = "deploy the pipeline and alert on metrics"


def timed(
    run: Callable[[], object], repeats: int, first: Callable[[], object] = lambda: None
) -> list[tuple[float, float]]:
    """CPU and wall seconds of each of ``repeats`` calls of ``run``, each after ``first()``.

    What a call returns (a catalog) is freed after its sample is taken: a process keeps its
    catalog, and freeing 10,000 entries (7 ms) is no part of loading them.
    """
    samples = []
    for _ in range(repeats):
        gc.collect()  # the previous sample's garbage is not this one's
        first()
        cpu, wall = time.process_time(), time.perf_counter()
        made = run()
        samples.append((time.process_time() - cpu, time.perf_counter() - wall))
        del made
    return samples


def restart_samples(
    root: str, cache_folder: str, repeats: int
) -> dict[str, list[tuple[float, float]]]:
    """Cold, warm-cache and no-change refresh samples (see the module docstring)."""

    def first_refresh(cache: CatalogCache | bool) -> SkillCatalog:
        catalog = SkillCatalog(LocalBackend(root), cache=cache)
        report = asyncio.run(catalog.refresh())
        assert not report.errors, report.errors[:3]
        return catalog

    def warm() -> SkillCatalog:
        cache = CatalogCache(cache_folder)
        catalog = SkillCatalog(LocalBackend(root), cache=cache)
        report = asyncio.run(catalog.refresh())
        assert report.fetched == 0, "the cache was not warm"
        cache.close()
        return catalog

    first_refresh(CatalogCache(cache_folder))  # fills the cache
    loaded = first_refresh(False)

    def no_change() -> None:
        assert not asyncio.run(loaded.refresh()).has_changes

    def cold_saving() -> SkillCatalog:
        with tempfile.TemporaryDirectory(prefix="skillfs-cold-") as folder:
            cache = CatalogCache(folder)
            catalog = first_refresh(cache)
            cache.close()
        return catalog

    samples = {
        "cold": timed(lambda: first_refresh(False), repeats),
        "coldsave": timed(cold_saving, repeats),
        "warm": timed(warm, repeats),
        "nochange": timed(no_change, repeats),
    }
    ready: list[SkillCatalog] = []

    def search() -> SkillCatalog:
        catalog = ready.pop()
        assert asyncio.run(search_index(catalog).search_async(QUERY))
        return catalog

    def search_again() -> None:
        assert asyncio.run(search_index(loaded).search_async(QUERY))

    with contextlib.ExitStack() as folders:

        def cold_cache() -> None:
            folder = folders.enter_context(tempfile.TemporaryDirectory(prefix="skillfs-cold-"))
            ready.append(first_refresh(CatalogCache(folder)))

        asyncio.run(search_index(first_refresh(CatalogCache(cache_folder))).search_async(QUERY))
        searches = {
            "searchheld": timed(search, repeats, lambda: ready.append(first_refresh(False))),
            "searchsave": timed(search, repeats, cold_cache),
            "searchwarm": timed(search, repeats, lambda: ready.append(warm())),
        }
    search_again()
    return {**samples, **searches, "searchagain": timed(search_again, repeats)}


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    print(json.dumps(restart_samples(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
