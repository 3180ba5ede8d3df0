"""`skillfs publish`: the skills a catalog serves, as a well-known index any host can serve."""

from __future__ import annotations

import json
from pathlib import Path

from backends._digests import digest_of
from backends._index.document import INDEX_PATH, SCHEMA
from skills_core.cli._source import EXAMPLES
from tests.cli.conftest import BROKEN, GOOD, RunCli
from tests.cli.test_bundle import uploaded
from tests.remote.harnesses import S3Harness

FOLDER = Path(INDEX_PATH).parent


def listed(cli: RunCli, url: str | Path) -> list[str]:
    """The names ``skillfs list`` shows."""
    result = cli("list", url)
    assert result.code == 0, result.err
    return [line.split()[0] for line in result.out.splitlines()[1:]]


def published(out: Path) -> dict[str, bytes]:
    """Every file below ``out``, by relative path."""
    return {
        str(path.relative_to(out)): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


def test_the_examples_publish_as_an_index_that_loads_back_byte_for_byte(
    cli: RunCli, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    result = cli("publish", "-o", out)
    assert result.code == 0, result.err
    files = published(out)
    names = sorted(path.name for path in EXAMPLES.iterdir() if (path / "SKILL.md").is_file())
    document = json.loads(files[INDEX_PATH])
    assert sorted(files) == sorted(
        [INDEX_PATH, *(f"{FOLDER}/{item['url']}" for item in document["skills"])]
    )
    size = sum(map(len, files.values()))
    assert result.out == (
        f"published {len(names)} skills to {out / INDEX_PATH}: "
        f"the index and {len(names)} artifacts, {size} bytes\n"
    )
    assert document["$schema"] == SCHEMA
    for item in document["skills"]:
        assert list(item) == [
            "name",
            "type",
            "description",
            "url",
            "digest",
            "skillfs-skill-md",
        ]
        assert item["type"] == "archive"
        assert item["url"] == f"{item['name']}-{item['digest'].removeprefix('sha256:')}.zip"
        assert item["digest"] == digest_of(files[f"{FOLDER}/{item['url']}"])
        assert item["skillfs-skill-md"] == (EXAMPLES / item["name"] / "SKILL.md").read_text()
    assert listed(cli, out) == names  # the CLI reads a local publication through its index


def test_two_runs_publish_the_same_bytes(cli: RunCli, tmp_path: Path) -> None:
    assert cli("publish", "-o", tmp_path / "one").code == 0
    assert cli("publish", "-o", tmp_path / "two").code == 0
    assert published(tmp_path / "one") == published(tmp_path / "two")


def test_a_skill_that_is_its_skill_md_alone_is_published_as_skill_md(
    cli: RunCli, mixed_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert cli("publish", mixed_root, "-o", out, "--skip-invalid").code == 0
    document = json.loads((out / INDEX_PATH).read_bytes())
    kinds = {listed["name"]: (listed["type"], listed["url"]) for listed in document["skills"]}
    alpha = digest_of(GOOD["alpha"].encode()).removeprefix("sha256:")
    assert kinds["alpha"] == ("skill-md", f"alpha-{alpha}.md")
    assert kinds["beta"][0] == "archive"
    assert (out / FOLDER / f"alpha-{alpha}.md").read_text() == GOOD["alpha"]
    assert not set(BROKEN) & set(kinds)


def test_refused_skills_stop_the_publication(cli: RunCli, mixed_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = cli("publish", mixed_root, "-o", out)
    assert result.code == 1
    assert not out.exists()
    assert result.err.splitlines()[-1] == (
        f"error: {mixed_root}: nothing written: {len(BROKEN)} invalid skills; "
        "fix them, or pass --skip-invalid to leave them out"
    )


def test_an_output_inside_the_source_or_a_file_is_refused(
    cli: RunCli, mixed_root: Path, tmp_path: Path
) -> None:
    inside = cli("publish", mixed_root, "-o", mixed_root / "site", "--skip-invalid")
    assert inside.code == 2
    assert "the publication would be written inside its source" in inside.err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    a_file = cli("publish", "-o", blocker)
    assert (a_file.code, a_file.err) == (
        2,
        f"error: {blocker}: the output is a file: name the folder to publish to\n",
    )


def test_json_summary(cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "site"
    data = json.loads(cli("publish", "-o", out, "--json").out)
    assert data["location"] == str(out)
    assert data["index"] == str(out / INDEX_PATH)
    assert data["files"] == {path: len(body) for path, body in published(out).items()}
    assert data["skipped"] == []
    assert data["removed"] == []


def test_publish_to_a_bucket_and_read_it_back(cli: RunCli, s3: S3Harness) -> None:
    url = f"s3://{s3.bucket}/site"
    result = cli("publish", "-o", url)
    assert result.code == 0, result.err
    index = json.loads(uploaded(s3, f"site/{INDEX_PATH}"))
    assert s3.server.log.count("PUT", f"site/{FOLDER}/") == len(index["skills"]) + 1
    s3.server.log.reset()
    assert listed(cli, url) == [entry["name"] for entry in index["skills"]]
    assert s3.server.log.kinds() == {"LIST": 1, "GET": 1}  # the listing finds the index
