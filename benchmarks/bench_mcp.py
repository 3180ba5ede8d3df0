"""Skills over MCP: a generated folder served by SkillServer over streamable HTTP on loopback,
read by McpSkillsBackend under a SkillCatalog. Counts requests at the server.

Run: ``python -m benchmarks.bench_mcp [--sizes 100 1000] [--runs 3]``. Prints, per corpus
size, the server's first publish (every file hashed once), a client's cold catalog, a
no-change refresh and the load of one skill (medians), and the requests each made.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from backends import LocalBackend
from backends._mcp.backend import McpSkillsBackend
from benchmarks.corpus import write_corpus
from skills_core._catalog.catalog import SkillCatalog
from skills_core.mcp._server import SkillServer
from skills_core.mcp._transports import http_server
from tests.mcp.recording import RequestLog


async def measure(root: Path, runs: int) -> dict[str, Any]:
    publish, cold, no_change, load = [], [], [], []
    for _ in range(runs):
        server = SkillServer(SkillCatalog(LocalBackend(root)))
        started = time.perf_counter()
        await server.refresh()
        publish.append(time.perf_counter() - started)
        requests = RequestLog()
        server.lowlevel.middleware.append(requests)
        async with http_server(server) as endpoint:
            backend = McpSkillsBackend(endpoint.url)
            catalog = SkillCatalog(backend)
            started = time.perf_counter()
            report = await catalog.refresh()
            cold.append(time.perf_counter() - started)
            assert not report.errors, report.errors[:3]
            cold_requests = requests.take()
            started = time.perf_counter()
            await catalog.refresh()
            no_change.append(time.perf_counter() - started)
            no_change_requests = requests.take()
            started = time.perf_counter()
            await catalog.get(catalog.list()[0].name)
            load.append(time.perf_counter() - started)
            load_requests = requests.take()
            await backend.aclose()
        await server.aclose()
    return {
        "publish": statistics.median(publish),
        "cold": statistics.median(cold),
        "no_change": statistics.median(no_change),
        "load": statistics.median(load),
        "cold_requests": cold_requests,
        "no_change_requests": no_change_requests,
        "load_requests": load_requests,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = write_corpus(Path(folder), size)
            result = asyncio.run(measure(root, args.runs))
        print(f"{size} skills (medians of {args.runs})")
        print(f"  server publish (hash every file)  {result['publish']:.3f} s")
        print(
            f"  client cold catalog               {result['cold']:.3f} s  {result['cold_requests']}"
        )
        print(
            f"  client no-change refresh          {result['no_change']:.3f} s  "
            f"{result['no_change_requests']}"
        )
        print(
            f"  client load of one skill          {result['load']:.3f} s  {result['load_requests']}"
        )


if __name__ == "__main__":
    main()
