"""``skillfs publish [URL] -o OUT [--sign KEY] [--strict] [--skip-invalid] [--lock FILE]``.

Writes below the folder or bucket OUT what ``skillfs bundle`` would pack, as the agentskills.io
discovery layout (:mod:`skills_core.bundle.publish`): ``.well-known/agent-skills/index.json``
and one deterministic artifact per skill, for any static host or bucket to serve, then removes
the files of the publication it replaced that the new index no longer lists. Refused
skills stop it with exit code 1 unless ``--skip-invalid`` leaves them out; nothing is written
then. With ``--lock FILE`` only what the lock pins, as pinned, is published (as ``bundle``).
``--sign KEY`` signs the index with the Ed25519 private key in the file KEY (``skillfs keygen``):
the signature goes beside it, ``index.json.sig``. A progress bar is drawn on stderr when stderr
is a terminal (not with ``--quiet``).
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from backends.base import Backend
from backends.index.document import INDEX_PATH
from backends.remote.urls import join_location
from skills_core.bundle.publish import (
    SIGNATURE_PATH,
    Publication,
    build_publication,
    write_publication,
)
from skills_core.catalog.loading import Progress
from skills_core.cli.output import plural, problems_record
from skills_core.cli.packing import Packing, add_verdict_options, run_packing, skipped_suffix
from skills_core.cli.source import add_url_argument
from skills_core.cli.terminal import printable
from skills_core.trust.policy import TrustPolicy

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the URL, ``-o/--output``, ``--sign``, the verdict options and ``--lock``."""
    add_url_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the folder or bucket to publish to: a local folder or any fsspec URL "
        "(s3://bucket/site); the index goes to OUT/" + INDEX_PATH,
    )
    parser.add_argument(
        "--sign",
        metavar="KEY",
        type=Path,
        help="sign the index with the Ed25519 private key in the file KEY ('skillfs keygen'); "
        "the signature goes to OUT/" + SIGNATURE_PATH,
    )
    add_verdict_options(parser, verb="publish")


def run(args: argparse.Namespace) -> int:
    """Publish and summarize; exit 1, writing nothing, when a skill is refused."""
    if args.sign is None:
        return run_packing(args, PUBLISHING)
    from skills_core.trust.signing import private_key, read_key_file

    key = private_key(read_key_file(args.sign), location=str(args.sign))
    return run_packing(args, PUBLISHING._replace(build=partial(_build, signing_key=key)))


async def _build(
    source: Backend,
    strict: bool,
    skip_invalid: bool,
    progress: Progress | None,
    lock: str | None,
    *,
    signing_key: Ed25519PrivateKey | None = None,
) -> Publication:
    return await build_publication(
        source,
        strict=strict,
        skip_invalid=skip_invalid,
        progress=progress,
        signing_key=signing_key,
        trust=TrustPolicy(lock=lock),
    )


def _summary(published: Publication) -> str:
    index = join_location(published.location or "", INDEX_PATH)
    signed = SIGNATURE_PATH in published.files
    artifacts = len(published.files) - 1 - signed
    size = sum(len(data) for data in published.files.values())
    what = "the index, its signature" if signed else "the index"
    return (
        f"published {plural(len(published.skills), 'skill')} to {printable(index)}: "
        f"{what} and {plural(artifacts, 'artifact')}, {plural(size, 'byte')}"
        f"{_removed_suffix(published.removed)}{skipped_suffix(published.skipped)}"
    )


def _removed_suffix(removed: tuple[str, ...]) -> str:
    return f"; removed {plural(len(removed), 'file')} it no longer lists" if removed else ""


def _record(source: Backend, published: Publication) -> dict[str, Any]:
    return {
        "source": source.location,
        "location": published.location,
        "index": join_location(published.location or "", INDEX_PATH),
        "skills": list(published.skills),
        "files": {path: len(data) for path, data in published.files.items()},
        "removed": list(published.removed),
        "skipped": problems_record(published.skipped),
        "warnings": problems_record(published.warnings),
    }


PUBLISHING = Packing(
    _build,
    write_publication,
    folder=True,
    empty="the index lists no skills",
    summary=_summary,
    record=_record,
)
