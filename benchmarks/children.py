"""Running a benchmark's cases in a child process against one checkout of the code."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
"""This checkout."""


def run_case(script: Path, checkout: Path, *args: str) -> dict[str, Any]:
    """Run ``script`` (by path) with ``checkout`` importable; the JSON object it prints last."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, str(script), *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} {args[:2]} failed in {checkout}:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@contextlib.contextmanager
def checkout_at(ref: str) -> Iterator[Path]:
    """``ref`` itself when it is a folder, else this repository's files at that commit.

    A commit's files are extracted (``git archive``) to a temporary folder, removed afterwards,
    and its C extension built there, so both sides search with the C postings where it has them.
    """
    if Path(ref).is_dir():
        yield Path(ref).resolve()
        return
    archive = subprocess.run(
        ["git", "-C", str(HERE), "archive", "--format=tar", ref], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {ref} failed: {archive.stderr.decode()[-2000:]}")
    with tempfile.TemporaryDirectory(prefix=f"skillfs-{ref}-") as folder:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
        _build_extension(Path(folder), ref)
        yield Path(folder)


def _build_extension(checkout: Path, ref: str) -> None:
    """Build ``checkout``'s C postings into it; say so when it cannot (the twin then runs).

    Built from an empty folder: setuptools would read, and may refuse, an old pyproject.toml.
    """
    source = checkout / "skills_core/context/_body_words.c"
    if not source.is_file():
        return
    with tempfile.TemporaryDirectory(prefix="skillfs-ext-") as scratch:
        build = (
            "from setuptools import Extension, setup; setup(name='ext', script_args=['-q', "
            f"'build_ext', '--build-lib', {str(checkout)!r}, '--build-temp', {scratch!r}], "
            f"ext_modules=[Extension('skills_core.context._body_words', [{str(source)!r}])])"
        )
        command = [sys.executable, "-c", build]
        done = subprocess.run(command, cwd=scratch, capture_output=True, check=False)
    if done.returncode != 0:
        print(f"{ref}: C extension not built, its search runs the Python twin", file=sys.stderr)


def add_checkout_arguments(parser: argparse.ArgumentParser) -> None:
    """``--before DIR`` (a checkout to compare with) and ``--dir DIR`` (where to work)."""
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--dir", type=Path, help="where to keep corpora (default: a temp dir)")


def checkouts_of(args: argparse.Namespace) -> dict[str, Path]:
    """``{"before": ..., "after": this checkout}``, without "before" unless it was given."""
    if args.before is None:
        return {"after": HERE}
    return {"before": args.before.resolve(), "after": HERE}


def work_dir(args: argparse.Namespace) -> Path:
    """Where the corpora go: ``--dir``, or a new temporary folder."""
    return Path(args.dir or tempfile.mkdtemp(prefix="skillfs-bench-"))
