"""``skillfs bundle [URL] -o OUT [--strict] [--skip-invalid] [--lock FILE] [--json]``.

Packs what ``skillfs list`` serves (skills loaded with warnings included), or with
``--strict`` what ``skillfs validate`` passes, into the deterministic zip of
:mod:`skills_core.bundle.writer` (same skills, same bytes), written to a local path or any
fsspec URL but never inside the source. Refused skills stop the bundle with exit code 1 unless
``--skip-invalid`` leaves them out; with ``--lock FILE``, skills the lock does not pin, or with a
file that differs from it, are refused too. A progress bar is drawn on stderr when stderr is a
terminal (not with ``--quiet``).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from backends.base import Backend
from backends.remote.upload import write_bytes
from skills_core.bundle.writer import Bundle, build_bundle
from skills_core.catalog.loading import Progress
from skills_core.cli.output import plural, problems_record
from skills_core.cli.packing import Packing, add_verdict_options, run_packing, skipped_suffix
from skills_core.cli.source import add_url_argument
from skills_core.cli.terminal import printable
from skills_core.trust.policy import TrustPolicy


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--strict``, ``--skip-invalid``, ``--lock``, ``--json``."""
    add_url_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the zip to create or replace: a local path or any fsspec URL "
        "(s3://bucket/skills.zip)",
    )
    add_verdict_options(parser, verb="bundle")


def run(args: argparse.Namespace) -> int:
    """Write the bundle and summarize it; exit 1, writing nothing, when a skill is refused."""
    return run_packing(args, BUNDLING)


async def _build(
    source: Backend, strict: bool, skip_invalid: bool, progress: Progress | None, lock: str | None
) -> Bundle:
    return await build_bundle(
        source,
        strict=strict,
        skip_invalid=skip_invalid,
        progress=progress,
        trust=TrustPolicy(lock=lock),
    )


async def _store(bundle: Bundle, out: str) -> Bundle:
    return replace(bundle, location=await write_bytes(out, bundle.data))


def _summary(bundle: Bundle) -> str:
    return (
        f"wrote {printable(bundle.location or '')}: {plural(len(bundle.skills), 'skill')}, "
        f"{plural(bundle.files, 'file')}, {plural(len(bundle.data), 'byte')}, "
        f"sha256 {bundle.sha256}{skipped_suffix(bundle.skipped)}"
    )


def _record(source: Backend, bundle: Bundle) -> dict[str, Any]:
    return {
        "source": source.location,
        "location": bundle.location,
        "skills": list(bundle.skills),
        "files": bundle.files,
        "bytes": len(bundle.data),
        "sha256": bundle.sha256,
        "skipped": problems_record(bundle.skipped),
        "warnings": problems_record(bundle.warnings),
    }


BUNDLING = Packing(
    _build,
    _store,
    folder=False,
    empty="the bundle holds no skills",
    summary=_summary,
    record=_record,
)
