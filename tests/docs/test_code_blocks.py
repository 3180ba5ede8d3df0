"""Every Python block of README.md and docs/ runs as written, offline (see tests/docs/blocks.py).

Each page runs in a process of its own (a page may register an fsspec implementation or a
tracer provider) inside a fresh workspace holding what its reader has: ``./skills`` with the
bundled examples (plus the skill docs/getting-started.md has its reader write), and S3 served
by moto, whose buckets named in the pages hold the examples. Endpoint, credentials and the
named AWS profiles come from the environment, as they would for a reader.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skills_core.cli import main
from tests.docs.blocks import python_blocks
from tests.docs.pages import ROOT, page_id, user_pages
from tests.remote.servers import S3Server
from tests.remote.settings import S3_KEY, S3_SECRET
from tests.remote.zips import zip_bytes

EXAMPLES = ROOT / "skills_core" / "examples"
PAGES = [page for page in user_pages() if any(block.run for block in python_blocks(page))]
MOST_FRAGMENTS = 5
ALL_EXAMPLES = "['api-docs', 'csv-insights', 'git-commit-messages', 'release-notes']"
PRINTED = {
    "README.md": "csv-insights - ",
    "docs/adk.md": f"ADK skills: {ALL_EXAMPLES}",  # the eager snippet used to load none
    "docs/getting-started.md": "'pdf-forms'",
    "docs/index-and-publishing.md": "second refresh changed anything: False",
    "docs/storage/s3.md": "('api-docs', 'csv-insights', 'git-commit-messages', 'release-notes')",
    "docs/telemetry.md": '"name": "skillfs.load_skill"',
    "docs/trust.md": "['changed file: csv-insights/scripts/profile_csv.py']",
}
"""What some pages print when their code works, not merely runs."""
PROFILES = ("skills-reader", "publisher")


def example_tree() -> dict[str, bytes]:
    return {
        path.relative_to(EXAMPLES).as_posix(): path.read_bytes()
        for path in sorted(EXAMPLES.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def write_pdf_forms(skills: Path) -> None:
    """The skeleton docs/getting-started.md has its reader write with ``skillfs new``."""
    assert main(["new", "pdf-forms", "--dir", str(skills)]) == 0


PAGE_SKILLS = {"docs/getting-started.md": write_pdf_forms}
"""Skills a page has its reader write before its code runs, beyond the bundled examples."""


@pytest.fixture(scope="module")
def aws_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An AWS config and credentials file naming the profiles the pages use."""
    aws = tmp_path_factory.mktemp("aws")
    (aws / "config").write_text("".join(f"[profile {p}]\nregion = us-east-1\n" for p in PROFILES))
    keys = f"aws_access_key_id = {S3_KEY}\naws_secret_access_key = {S3_SECRET}\n"
    (aws / "credentials").write_text("".join(f"[{p}]\n{keys}" for p in ("default", *PROFILES)))
    return aws


def reader_workspace(root: Path, page: Path) -> Path:
    """A fresh folder as the page's reader has it: ./skills holds the bundled examples."""
    shutil.copytree(EXAMPLES, root / "skills", ignore=shutil.ignore_patterns("__pycache__"))
    write_extra = PAGE_SKILLS.get(page_id(page))
    if write_extra is not None:
        write_extra(root / "skills")
    (root / "home").mkdir()
    return root


@pytest.fixture(scope="module")
def buckets(s3_server: S3Server, s3_client: Any) -> S3Server:
    """The buckets the pages name, holding the bundled examples where the pages read them."""
    tree = example_tree()
    for bucket in ("my-bucket", "my-org", "acme-skills", "bucket"):
        if bucket not in {b["Name"] for b in s3_client.list_buckets()["Buckets"]}:
            s3_client.create_bucket(Bucket=bucket)
    for bucket, prefix in (("my-bucket", "skills"), ("my-org", "skills"), ("acme-skills", "prod")):
        for path, data in tree.items():
            s3_client.put_object(Bucket=bucket, Key=f"{prefix}/{path}", Body=data)
    s3_client.put_object(Bucket="bucket", Key="big.zip", Body=zip_bytes(tree))
    return s3_server


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_pages_python_runs(
    page: Path, tmp_path: Path, aws_files: Path, buckets: S3Server
) -> None:
    workspace = reader_workspace(tmp_path, page)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HOME": str(workspace / "home"),
        "AWS_ENDPOINT_URL": buckets.url,
        "AWS_ACCESS_KEY_ID": S3_KEY,
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(aws_files / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(aws_files / "credentials"),
        "GITHUB_TOKEN": "a-token-no-request-uses",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.docs.blocks", str(page)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"{page_id(page)}:\n{done.stdout}\n{done.stderr}"
    assert PRINTED.get(page_id(page), "") in done.stdout


def test_fragments_are_few() -> None:
    fragments = [
        f"{page_id(block.page)}:{block.line}"
        for page in user_pages()
        for block in python_blocks(page)
        if not block.run
    ]
    assert len(fragments) <= MOST_FRAGMENTS, fragments


def test_every_page_with_python_is_run() -> None:
    assert {page_id(page) for page in PAGES} >= {
        "README.md",
        "docs/adk.md",
        "docs/backends.md",
        "docs/catalog.md",
        "docs/getting-started.md",
        "docs/storage/s3.md",
        "docs/storage/zip.md",
        "docs/telemetry.md",
    }
