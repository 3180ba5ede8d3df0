"""Refreshing 1,000 skills from S3: skillfs against a sequential per-skill loader.

Runs against moto's S3 on 127.0.0.1, started here in a child process (so the server's work
does not share this process's interpreter lock), counting requests at the server. An optional
latency is slept before each answer, standing in for the round trip to a real region.

- skillfs, folder: ``SkillCatalog(FsspecBackend("s3://…/skills"))`` -- one LIST per 1,000
  keys, then concurrent GETs of the SKILL.md files that changed.
- skillfs, bundle: the same skills in one zip object -- a HEAD, and a GET when it changed.
- skillfs, published index: the same skills as ``skillfs publish`` writes them (a well-known
  index and one zip per skill) below ``s3://…/site`` -- one GET cold, one HEAD when unchanged.
- sequential: what google-adk's GCS loader (``_list_skills_in_gcs_dir``) does, on S3 with
  boto3: one delimiter listing, then for each skill in turn an existence check (HEAD) and a
  download (GET), and no cache, so a reload costs as much as the first load.

A cold refresh starts from an empty catalog in a process whose botocore models are already
loaded (both loaders share that once-per-process cost); a no-change refresh repeats it on the
same catalog. Run: ``python -m benchmarks.bench_remote [skills] [runs] [latency_ms]
[concurrencies]``, the last a comma-separated list of ``FsspecBackend(max_concurrency=...)``
values to measure the folder with (default ``16``).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

import boto3
from aiobotocore.session import AioSession

from backends import FsspecBackend, MemoryBackend
from backends.testing import skill_md
from skills_core import SkillCatalog, parse_skill_md
from skills_core._bundle.publish import build_publication
from tests.remote.servers import S3Server
from tests.remote.zips import zip_bytes

KEY, SECRET = "AKIDBENCHMARK0000000", "benchmark-secret-0123456789"
BUCKET = "skills-benchmark"


def skills_tree(count: int) -> dict[str, bytes]:
    tree: dict[str, bytes] = {}
    for index in range(count):
        name = f"skill-{index:04d}"
        tree[f"{name}/SKILL.md"] = skill_md(name, f"Benchmark skill number {index}.")
        tree[f"{name}/references/guide.md"] = b"# Guide\n" * 20
        tree[f"{name}/scripts/run.py"] = b"print('hello')\n"
    return tree


def sequential_load(client: Any, prefix: str) -> dict[str, str]:
    """google-adk's GCS loader, on S3: list folders, then HEAD and GET each SKILL.md in turn."""
    prefixes: list[str] = []
    for page in client.get_paginator("list_objects_v2").paginate(
        Bucket=BUCKET, Prefix=prefix, Delimiter="/"
    ):
        prefixes += [entry["Prefix"] for entry in page.get("CommonPrefixes", [])]
    skills = {}
    for skill_prefix in sorted(prefixes):
        key = f"{skill_prefix}SKILL.md"
        try:
            client.head_object(Bucket=BUCKET, Key=key)
        except client.exceptions.ClientError:
            continue
        content = client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        parsed = parse_skill_md(content, location=key)
        skills[skill_prefix.rstrip("/").split("/")[-1]] = str(parsed.frontmatter["description"])
    return skills


def serve(connection: Connection, latency: float) -> None:
    """Child process: run the S3 server and answer "url", "reset", "kinds" and "ranges"."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = S3Server(latency).start()
    commands: dict[str, Callable[[], Any]] = {
        "url": lambda: server.url,
        "reset": server.log.reset,
        "kinds": server.log.kinds,
        "ranges": lambda: [r.range for r in server.log.requests if r.method == "GET"],
    }
    while (command := connection.recv()) != "stop":
        connection.send(commands[command]())
    server.stop()


class ServerProcess:
    """The S3 server in a child process, with its request log reached through a pipe."""

    def __init__(self, latency: float) -> None:
        self._connection, child = multiprocessing.Pipe()
        self._process = multiprocessing.Process(target=serve, args=(child, latency), daemon=True)
        self._process.start()
        self.url: str = self.ask("url")

    def ask(self, command: str) -> Any:
        self._connection.send(command)
        return self._connection.recv()

    def stop(self) -> None:
        self._connection.send("stop")
        self._process.join(timeout=5)


class Bench:
    def __init__(self, count: int, runs: int, latency: float) -> None:
        self.count, self.runs, self.latency = count, runs, latency
        self.server = ServerProcess(latency)
        self.client = boto3.client(
            "s3",
            endpoint_url=self.server.url,
            region_name="us-east-1",
            aws_access_key_id=KEY,
            aws_secret_access_key=SECRET,
        )
        self.session = AioSession()
        self.rows: list[tuple[str, str, dict[str, int], float]] = []

    def options(self) -> dict[str, Any]:
        return {
            "endpoint_url": self.server.url,
            "key": KEY,
            "secret": SECRET,
            "client_kwargs": {"region_name": "us-east-1"},
            "session": self.session,
        }

    async def upload(self) -> None:
        self.client.create_bucket(Bucket=BUCKET)
        tree = skills_tree(self.count)
        self.put_all("skills", tree)
        self.client.put_object(Bucket=BUCKET, Key="bundles/skills.zip", Body=zip_bytes(tree))
        skills: dict[str, dict[str, bytes]] = {}
        for path, data in tree.items():
            name, _, inner = path.partition("/")
            skills.setdefault(name, {})[inner] = data
        publication = await build_publication(MemoryBackend(skills))
        self.put_all("site", publication.files)

    def put_all(self, prefix: str, files: Mapping[str, bytes]) -> None:
        with ThreadPoolExecutor(16) as pool:
            list(
                pool.map(
                    lambda item: self.client.put_object(
                        Bucket=BUCKET, Key=f"{prefix}/{item[0]}", Body=item[1]
                    ),
                    files.items(),
                )
            )

    async def measure(self, loader: str, scenario: str, run: Callable[[], Awaitable[Any]]) -> None:
        walls, counts = [], {}
        for _ in range(self.runs):
            self.server.ask("reset")
            started = time.perf_counter()
            await run()
            walls.append(time.perf_counter() - started)
            counts = self.server.ask("kinds")
        self.rows.append((scenario, loader, counts, statistics.median(walls)))

    async def skillfs(self, url: str, loader: str, concurrency: int = 16) -> None:
        options = {**self.options(), "max_concurrency": concurrency}

        async def cold() -> None:
            report = await SkillCatalog(FsspecBackend(url, **options)).refresh()
            assert len(report.added) == self.count, report

        warm = SkillCatalog(FsspecBackend(url, **options))
        await warm.refresh()

        async def no_change() -> None:
            report = await warm.refresh()
            assert not report.has_changes
            assert report.fetched == 0

        await self.measure(loader, "cold refresh", cold)
        await self.measure(loader, "no-change refresh", no_change)

    async def sequential(self) -> None:
        async def load() -> None:
            skills = await asyncio.to_thread(sequential_load, self.client, "skills/")
            assert len(skills) == self.count

        await self.measure("sequential per-skill", "cold refresh", load)
        await self.measure("sequential per-skill", "no-change refresh", load)

    def table(self) -> str:
        lines = [
            "| refresh | loader | LIST | HEAD | GET | requests | wall, median |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for scenario, loader, counts, wall in sorted(self.rows, key=lambda row: row[0]):
            kinds = [counts.get(kind, 0) for kind in ("LIST", "HEAD", "GET")]
            cells = " | ".join(str(count) for count in kinds)
            lines.append(
                f"| {scenario} | {loader} | {cells} | {sum(counts.values())} | {wall:.3f} s |"
            )
        return "\n".join(lines)


async def main(count: int, runs: int, latency_ms: int, concurrencies: list[int]) -> None:
    bench = Bench(count, runs, latency_ms / 1000)
    try:
        await bench.upload()
        for concurrency in concurrencies:
            label = f"skillfs, folder, max_concurrency={concurrency}"
            await bench.skillfs(f"s3://{BUCKET}/skills", label, concurrency)
        await bench.skillfs(f"s3://{BUCKET}/bundles/skills.zip", "skillfs, zip bundle")
        await bench.skillfs(f"s3://{BUCKET}/site", "skillfs, published index")
        await bench.sequential()
    finally:
        bench.server.stop()
    print(
        f"{count} skills ({3 * count} keys), moto S3 in a child process on 127.0.0.1, "
        f"{latency_ms} ms added per request, median of {runs} runs, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n"
    )
    print(bench.table())


if __name__ == "__main__":
    defaults = [1000, 3, 0]
    given = [int(value) for value in sys.argv[1:4]]
    count, runs, latency = [*given, *defaults[len(given) :]]
    concurrencies = [
        int(value) for value in (sys.argv[4] if len(sys.argv) > 4 else "16").split(",")
    ]
    asyncio.run(main(count, runs, latency, concurrencies))
