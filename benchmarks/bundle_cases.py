"""The cases of ``benchmarks.bench_bundle``, run in a child process against one checkout.

Run by path with ``PYTHONPATH`` set to the checkout to measure; prints one JSON object.

- ``write ROOT OUT``: ``build_bundle`` of a local folder, written to OUT: CPU and wall seconds.
- ``load URL OPTIONS_JSON [reads]``: a cold refresh of a bundle on S3, and with ``reads``
  ``get()`` of the first 100 skills and a read of every file of the first 20: what loaded, CPU
  and wall seconds. Requests are counted by the caller, at the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from typing import Any


def write(root: str, out: str) -> dict[str, Any]:
    from backends import LocalBackend
    from skills_core._bundle.writer import build_bundle

    cpu, wall = time.process_time(), time.perf_counter()
    try:
        bundle = asyncio.run(build_bundle(LocalBackend(root)))
    except Exception as exc:  # the old writer refuses more than 10,000 members
        return {"error": f"{type(exc).__name__}: {exc}"[:300], **_spent(cpu, wall)}
    with open(out, "wb") as handle:
        handle.write(bundle.data)
    return {
        "skills": len(bundle.skills),
        "files": bundle.files,
        "bytes": len(bundle.data),
        **_spent(cpu, wall),
    }


def load(url: str, options: dict[str, Any], *, reads: bool) -> dict[str, Any]:
    from backends import BundleBackend, Limits
    from skills_core import SkillCatalog

    limits = Limits(**options.pop("limits", {}))
    backend = BundleBackend(url, limits=limits, **options)
    catalog = SkillCatalog(backend)

    async def run() -> dict[str, Any]:
        cpu, wall = time.process_time(), time.perf_counter()
        report = await catalog.refresh()
        cold = _spent(cpu, wall)
        if report.failure is not None:
            return {"failure": report.failure.message[:300], "cold": cold}
        if not reads:
            return {"skills": len(catalog.list()), "cold": cold}
        names = [meta.name for meta in catalog.list()]
        cpu, wall = time.process_time(), time.perf_counter()
        for name in names[:100]:
            await catalog.get(name)
        for name in names[:20]:
            for entry in (await catalog.get(name)).files:
                await catalog.read_resource(name, entry.path)
        spent = _spent(cpu, wall)
        await backend.aclose()
        return {"skills": len(names), "errors": len(report.errors), "cold": cold, "reads": spent}

    return asyncio.run(run())


def _spent(cpu: float, wall: float) -> dict[str, float]:
    return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    kind, *rest = sys.argv[1:]
    if kind == "write":
        result = write(*rest)
    else:
        result = load(rest[0], json.loads(rest[1]), reads=rest[2:] == ["reads"])
    print(json.dumps(result))
