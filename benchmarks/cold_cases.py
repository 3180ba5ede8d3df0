"""One checkout's cold catalog, run in a child process by :mod:`benchmarks.bench_cold`.

Run by path (``python benchmarks/cold_cases.py ROOT REPEATS``) with ``PYTHONPATH`` set to the
checkout to measure. Only the public API every checkout has is used (``LocalBackend``,
``SkillCatalog``). After one untimed load (imports, page cache), times ``REPEATS`` new
catalogs' first refresh and prints ``{"cold": [CPU seconds, ...]}``: this process's CPU time
(``time.process_time``, worker threads included), which the waits other processes cause on a
shared machine do not inflate.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
import time


def cold_samples(root: str, repeats: int) -> list[float]:
    """CPU seconds of each of ``repeats`` cold loads, after one untimed load."""
    from backends import LocalBackend
    from skills_core import SkillCatalog

    def load() -> SkillCatalog:
        catalog = SkillCatalog(LocalBackend(root))
        report = asyncio.run(catalog.refresh())
        assert not report.errors, report.errors[:3]
        return catalog

    load()
    samples = []
    for _ in range(repeats):
        gc.collect()  # the previous catalog's garbage is not this load's
        started = time.process_time()
        catalog = load()
        samples.append(time.process_time() - started)
        del catalog
    return samples


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    print(json.dumps({"cold": cold_samples(sys.argv[1], int(sys.argv[2]))}))
