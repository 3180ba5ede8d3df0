"""Bundles of real size: writing them, and loading them from S3 whole or member by member.

Run: ``python -m benchmarks.bench_bundle [--sizes 1000 10000] [--before DIR] [--latency-ms 0]``.

- ``skillfs bundle``'s writer (``build_bundle``) on the generated corpus, CPU and wall time,
  before and after (the old writer is quadratic and refuses over 10,000 members: it is run at
  1,000 and 3,000 skills only).
- The largest bundle loaded from moto's S3 (in a child process, requests counted there):
  downloaded whole (the default up to 64 MiB), range-read member by member (a download
  threshold below its size, as a bundle over 64 MiB gets), and refused from its end record
  with a member limit below its count; then ``get()`` of 100 skills and a read of every file of
  20. Each case runs in a child process against one checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.bench_remote import BUCKET, KEY, SECRET, ServerProcess
from benchmarks.children import add_checkout_arguments, checkouts_of, run_case, work_dir
from benchmarks.corpus import write_corpus

CASES = Path(__file__).with_name("bundle_cases.py")
BEFORE_SIZES = (1000, 3000)


def writer_rows(base: Path, sizes: list[int], checkouts: dict[str, Path]) -> list[str]:
    rows = [
        "| skills | files | checkout | CPU s | wall s | bundle |",
        "|---:|---:|---|---:|---:|---|",
    ]
    for count in sorted({*sizes, *BEFORE_SIZES}):
        root = write_corpus(base / f"corpus-{count}", count)
        for label, checkout in checkouts.items():
            if label == "before" and count not in BEFORE_SIZES:
                continue
            out = base / f"bundle-{count}-{label}.zip"
            found = run_case(CASES, checkout, "write", str(root), str(out))
            outcome = found.get("error") or f"{found['bytes'] / 2**20:.1f} MiB"
            files = found.get("files", "")
            rows.append(
                f"| {count:,} | {files:,} | {label} | {found['cpu']:.1f} | {found['wall']:.1f} "
                f"| {outcome} |"
                if files
                else f"| {count:,} | | {label} | {found['cpu']:.1f} | {found['wall']:.1f} "
                f"| {outcome} |"
            )
    return rows


def load_rows(bundle: Path, checkouts: dict[str, Path], latency: float) -> list[str]:
    server = ServerProcess(latency)
    try:
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=server.url,
            region_name="us-east-1",
            aws_access_key_id=KEY,
            aws_secret_access_key=SECRET,
        )
        client.create_bucket(Bucket=BUCKET)
        client.put_object(Bucket=BUCKET, Key="skills.zip", Body=bundle.read_bytes())
        size = bundle.stat().st_size
        options = {
            "endpoint_url": server.url,
            "key": KEY,
            "secret": SECRET,
            "client_kwargs": {"region_name": "us-east-1"},
        }
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("before", "default limits", {}),
            ("after", "default limits: downloaded whole", {}),
            (
                "after",
                "range-read (download threshold 8 MiB)",
                {"limits": {"bundle_download_bytes": 8 * 2**20}},
            ),
            (
                "after",
                "range-read, max_concurrency=64",
                {"limits": {"bundle_download_bytes": 8 * 2**20}, "max_concurrency": 64},
            ),
            ("after", "member limit 10,000", {"limits": {"max_bundle_entries": 10_000}}),
        ]
        rows = [
            "| checkout | case | outcome | HEAD | GET | MiB read | CPU s | wall s "
            "| then: GET | CPU s |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        url = f"s3://{BUCKET}/skills.zip"
        for label, case, extra in cases:
            if label not in checkouts:
                continue
            arguments = [url, json.dumps({**options, **extra})]
            server.ask("reset")
            cold = run_case(CASES, checkouts[label], "load", *arguments)
            cold_kinds = server.ask("kinds")
            read = sum(_ranged_bytes(value, size) for value in server.ask("ranges")) / 2**20
            then = ""
            if "failure" not in cold:
                server.ask("reset")
                full = run_case(CASES, checkouts[label], "load", *arguments, "reads")
                gets = server.ask("kinds").get("GET", 0) - cold_kinds.get("GET", 0)
                spent = full["reads"]["cpu"]
                then = f"{gets} | {spent:.2f}"
            outcome = cold.get("failure") or f"{cold['skills']:,} skills"
            rows.append(
                f"| {label} | {case} | {outcome} | {cold_kinds.get('HEAD', 0)} | "
                f"{cold_kinds.get('GET', 0)} | {read:.1f} | {cold['cold']['cpu']:.2f} | "
                f"{cold['cold']['wall']:.2f} | {then or ' | '} |"
            )
        rows.append(f"\nBundle: {size / 2**20:.1f} MiB, {latency * 1000:.0f} ms added per request.")
        return rows
    finally:
        server.stop()


def _ranged_bytes(header: str, size: int) -> int:
    """The bytes a GET asked for: its Range, or the whole object."""
    if not header:
        return size
    first, last = header.removeprefix("bytes=").split("-")
    return int(last) - int(first) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    add_checkout_arguments(parser)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args()
    base, checkouts = work_dir(args), checkouts_of(args)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    print("\n".join(writer_rows(base, args.sizes, checkouts)))
    largest = base / f"bundle-{max(args.sizes)}-after.zip"
    print()
    print("\n".join(load_rows(largest, checkouts, args.latency_ms / 1000)))


if __name__ == "__main__":
    main()
