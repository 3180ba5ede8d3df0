"""The cases of ``benchmarks.bench_scale``, run in a child process against one checkout.

Run by path (``python benchmarks/scale_cases.py KIND ROOT ...``) with ``PYTHONPATH`` set to the
checkout to measure, so the same cases time the code before and after a change. Only the
public API is used (``LocalBackend``, ``SkillCatalog``), and only what both checkouts have.
Prints one JSON object.

Clock: this process's CPU time (``time.process_time``, worker threads included), the median of
``runs`` repeats: the machine is shared, and CPU time does not count the waits other
processes cause.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import logging
import os
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skills_core import SkillCatalog

EDITED = "skill-00042"
RESOURCE = "references/guide.md"  # every third skill has one


def cpu_median(run: Callable[[], object], runs: int, calls: int = 1) -> float:
    """Median CPU seconds per call of ``run`` over ``runs`` repeats of ``calls`` calls."""
    samples = []
    for _ in range(runs):
        started = time.process_time()
        for _ in range(calls):
            run()
        samples.append((time.process_time() - started) / calls)
    return statistics.median(samples)


def confined_read(folder: str, relative: str) -> bytes:
    """A plain confined read: realpath, commonpath, open, read."""
    real = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(real, relative))
    if os.path.commonpath([real, target]) != real:
        raise ValueError(relative)
    with open(target, "rb") as handle:
        return handle.read()


def timing(root: str, runs: int) -> dict[str, float]:
    """Warm get(), read_resource against the floor, and one edit against a no-change refresh."""
    from backends import LocalBackend
    from skills_core import SkillCatalog

    loop = asyncio.new_event_loop()
    catalog = SkillCatalog(LocalBackend(root))
    loop.run_until_complete(catalog.refresh())
    names = [meta.name for meta in catalog.list()][:600]
    with_resource = [name for name in names if int(name.rsplit("-", 1)[1]) % 3 == 0][:200]

    async def get_all() -> None:
        for name in names:
            await catalog.get(name)

    async def read_all() -> None:
        for name in with_resource:
            await catalog.read_resource(name, RESOURCE)

    async def floor_all() -> None:
        for name in with_resource:
            await asyncio.to_thread(confined_read, os.path.join(root, name), RESOURCE)

    loop.run_until_complete(get_all())  # warm
    results = {
        "get_warm": cpu_median(lambda: loop.run_until_complete(get_all()), runs) / len(names),
        "read_resource": cpu_median(lambda: loop.run_until_complete(read_all()), runs)
        / len(with_resource),
        "read_floor": cpu_median(lambda: loop.run_until_complete(floor_all()), runs)
        / len(with_resource),
    }
    results.update(edits(loop, catalog, root, runs))
    loop.close()
    return results


def edits(
    loop: asyncio.AbstractEventLoop, catalog: SkillCatalog, root: str, runs: int
) -> dict[str, float]:
    """No-change refreshes and refreshes after editing one SKILL.md, taking turns."""
    path = os.path.join(root, EDITED, "SKILL.md")
    with open(path, "rb") as handle:
        original = handle.read()
    no_change, one_edit = [], []
    try:
        for run in range(runs):
            started = time.process_time()
            report = loop.run_until_complete(catalog.refresh())
            no_change.append(time.process_time() - started)
            assert report.fetched == 0
            edited = original.replace(b"description: ", f"description: v{run} ".encode(), 1)
            with open(path + ".tmp", "wb") as handle:
                handle.write(edited)
            os.replace(path + ".tmp", path)
            started = time.process_time()
            report = loop.run_until_complete(catalog.refresh())
            one_edit.append(time.process_time() - started)
            assert report.changed == (EDITED,), report.changed
    finally:
        with open(path, "wb") as handle:
            handle.write(original)
    return {"no_change": statistics.median(no_change), "one_edit": statistics.median(one_edit)}


def adk_get(root: str, runs: int) -> dict[str, float]:
    """google-adk's per-skill loader, ``load_skill_from_dir``, on one folder at a time."""
    from pathlib import Path

    from google.adk.skills import load_skill_from_dir

    folders = sorted(Path(root).iterdir())[:100]

    def load_all() -> None:
        for folder in folders:
            if folder.is_dir():
                load_skill_from_dir(folder)

    return {"adk_load_skill": cpu_median(load_all, runs) / len(folders)}


def memory(root: str, mode: str, traced: bool) -> dict[str, float]:
    """Bytes a loader keeps alive (traced) or its process's peak RSS (not traced)."""
    if mode == "adk":
        from google.adk.skills import list_skills_in_dir

        def load() -> object:
            return list_skills_in_dir(root)

    else:
        from backends import LocalBackend
        from skills_core import SkillCatalog

        options: dict[str, Any] = {"keep_bodies": False} if mode == "lean" else {}

        def load() -> object:
            catalog = SkillCatalog(LocalBackend(root), **options)
            asyncio.run(catalog.refresh())
            return catalog

    gc.collect()
    before = _rss()
    if traced:
        tracemalloc.start()
    kept = load()
    gc.collect()
    if traced:
        retained, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return {"retained": retained}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    del kept
    return {"rss_before": before, "rss_peak": peak}


def supports_lean() -> bool:
    """True when this checkout's SkillCatalog can keep metadata only."""
    from skills_core import SkillCatalog

    return "keep_bodies" in inspect.signature(SkillCatalog).parameters


def _rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main(argv: list[str]) -> dict[str, Any]:
    logging.disable(logging.WARNING)  # google-adk logs one line per skill otherwise
    kind, root = argv[0], argv[1]
    if kind == "timing":
        return timing(root, int(argv[2]))
    if kind == "adk-get":
        return adk_get(root, int(argv[2]))
    if kind == "supports-lean":
        return {"lean": supports_lean()}
    return memory(root, argv[2], traced=argv[3] == "traced")


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
