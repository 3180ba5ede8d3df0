"""Every example of README.md and docs/ runs as written, offline (see tests/docs/examples.py).

Each page runs in a process of its own (a page may register an fsspec implementation or a
tracer provider) inside a fresh workspace holding what its reader has: a home folder whose
``./skills`` holds the bundled examples, and S3 served by moto, whose buckets named in the
pages hold the examples. Endpoint, credentials and the named AWS profiles come from the
environment, as they would for a reader; the catalog cache is the default one, in the home
folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.docs.examples import SYBIL
from tests.docs.pages import ROOT, page_id, user_pages
from tests.remote.servers import S3Server
from tests.remote.settings import S3_KEY, S3_SECRET
from tests.remote.zips import zip_bytes

EXAMPLES = ROOT / "skills_core" / "examples"
PAGES = [page for page in user_pages() if SYBIL.parse(page).regions]
MOST_SKIPPED = 8
_SKIP = re.compile(r"<!-- skip: (?P<arguments>.*?) -->")
ALL_EXAMPLES = "['api-docs', 'csv-insights', 'git-commit-messages', 'release-notes']"
PRINTED = {
    "README.md": "csv-insights - ",
    "docs/adk.md": f"ADK skills: {ALL_EXAMPLES}",  # the eager snippet used to load none
    "docs/getting-started.md": "'pdf-forms'",
    "docs/index-and-publishing.md": "second refresh changed anything: False",
    "docs/mcp.md": "\nmcp[examples]:skill://csv-insights/SKILL.md\n",
    "docs/scripts.md": "0 usage: profile_csv.py",
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


@pytest.fixture(scope="module")
def aws_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An AWS config and credentials file naming the profiles the pages use."""
    aws = tmp_path_factory.mktemp("aws")
    (aws / "config").write_text("".join(f"[profile {p}]\nregion = us-east-1\n" for p in PROFILES))
    keys = f"aws_access_key_id = {S3_KEY}\naws_secret_access_key = {S3_SECRET}\n"
    (aws / "credentials").write_text("".join(f"[{p}]\n{keys}" for p in ("default", *PROFILES)))
    return aws


def reader_workspace(home: Path) -> Path:
    """A fresh home folder as the page's reader has it: ./skills holds the bundled examples."""
    shutil.copytree(EXAMPLES, home / "skills", ignore=shutil.ignore_patterns("__pycache__"))
    return home


@pytest.fixture(scope="module")
def buckets(s3_server: S3Server, s3_client: Any) -> S3Server:
    """The buckets the pages name, holding the bundled examples where the pages read them."""
    tree = example_tree()
    for bucket in ("my-bucket", "my-org", "acme-skills", "acme-releases", "bucket"):
        if bucket not in {b["Name"] for b in s3_client.list_buckets()["Buckets"]}:
            s3_client.create_bucket(Bucket=bucket)
    for bucket, prefix in (("my-bucket", "skills"), ("my-org", "skills"), ("acme-skills", "prod")):
        for path, data in tree.items():
            s3_client.put_object(Bucket=bucket, Key=f"{prefix}/{path}", Body=data)
    s3_client.put_object(Bucket="bucket", Key="big.zip", Body=zip_bytes(tree))
    return s3_server


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_pages_examples_run(
    page: Path, tmp_path_factory: pytest.TempPathFactory, aws_files: Path, buckets: S3Server
) -> None:
    workspace = reader_workspace(tmp_path_factory.mktemp("home"))  # a short path: tables fit
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"SKILLFS_CACHE_DIR", "XDG_CACHE_HOME"}},
        "PYTHONPATH": str(ROOT),
        "HOME": str(workspace),
        "AWS_ENDPOINT_URL": buckets.url,
        "AWS_ACCESS_KEY_ID": S3_KEY,
        "AWS_SECRET_ACCESS_KEY": S3_SECRET,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": str(aws_files / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(aws_files / "credentials"),
        "GITHUB_TOKEN": "a-token-no-request-uses",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.docs.examples", str(page)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"{page_id(page)}:\n{done.stdout}\n{done.stderr}"
    assert PRINTED.get(page_id(page), "") in done.stdout


def test_skipped_examples_are_few_and_say_why() -> None:
    skipped = {
        f"{page_id(page)}:{page.read_text().count(chr(10), 0, found.start()) + 1}": found[1]
        for page in user_pages()
        for found in _SKIP.finditer(page.read_text())
    }
    assert len(skipped) <= MOST_SKIPPED, skipped
    unexplained = {
        where: arguments
        for where, arguments in skipped.items()
        if not re.fullmatch(r'next "[^"]{10,}"', arguments)
    }
    assert not unexplained, f'write <!-- skip: next "why it cannot run offline" -->: {unexplained}'


def test_every_page_with_examples_is_run() -> None:
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
