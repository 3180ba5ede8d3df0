"""`skillfs watch` and `skillfs serve` start from the catalog cache, as the other commands do.

Real processes on a moto bucket, counted at the server: a second `watch` start on an unchanged
folder sends the listing and no GET; ``--no-cache`` reads every SKILL.md again. `serve` saves
and seeds its catalog the same way, and its skills extension takes each SKILL.md's SHA-256 from
the cache (what a client then reads: tests/cli/test_serve_restart.py).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from skills_core._catalog.cache import CatalogCache
from tests.cli.conftest import GOOD
from tests.cli.test_watch import ROOT, Watcher, watch  # noqa: F401 (a fixture)
from tests.remote.harnesses import S3Harness

SKILLS = {f"{name}/SKILL.md": text.encode() for name, text in GOOD.items()}
NEVER = "3600"  # seconds between polls: the first load is the only one


def started_watch(watch: type[Watcher], s3: S3Harness, *flags: str) -> dict[str, int]:  # noqa: F811
    """The requests of one `skillfs watch` start, up to its first line."""
    s3.server.log.reset()
    watcher = watch(s3.url, "--interval", NEVER, *flags)
    assert "loaded: 3 skills" in watcher.line()
    kinds = s3.server.log.kinds()
    assert watcher.interrupt() == 0
    return kinds


@pytest.fixture
def serve() -> Iterator[type[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "skills_core.cli", "serve", *args],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        return process

    yield start  # type: ignore[misc]
    for process in started:
        process.kill()
        process.wait(timeout=20)


def started_serve(serve: type[subprocess.Popen[str]], s3: S3Harness, *flags: str) -> dict[str, int]:
    """The requests of one `skillfs serve --http` start, up to its "serving" line."""
    s3.server.log.reset()
    process = serve(s3.url, "--http", "--port", "0", "--no-watch", *flags)  # type: ignore[call-arg]
    assert process.stderr is not None
    line = process.stderr.readline()
    assert line.startswith("serving 3 skills from s3://"), line
    kinds = s3.server.log.kinds()
    process.kill()
    process.wait(timeout=20)
    return kinds


def test_a_second_watch_start_lists_only(watch: type[Watcher], s3: S3Harness) -> None:  # noqa: F811
    s3.put_tree(SKILLS)
    assert started_watch(watch, s3) == {"LIST": 1, "GET": 3}
    assert started_watch(watch, s3) == {"LIST": 1}
    assert started_watch(watch, s3, "--no-cache") == {"LIST": 1, "GET": 3}


def test_serve_saves_and_reuses_the_catalog_cache(
    serve: type[subprocess.Popen[str]], s3: S3Harness
) -> None:
    s3.put_tree(SKILLS)
    assert started_serve(serve, s3, "--no-cache") == {"LIST": 1, "GET": 3}
    assert CatalogCache().catalogs() == []
    assert started_serve(serve, s3) == {"LIST": 1, "GET": 3}
    (saved,) = CatalogCache().catalogs()
    assert (saved.source, saved.skills) == (s3.url, 3)
    assert started_serve(serve, s3) == {"LIST": 1}  # the digests come from the cache
