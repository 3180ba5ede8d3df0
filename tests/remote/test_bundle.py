"""write_bundle: strict validation, a deterministic archive with a manifest, written anywhere."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from backends import BundleBackend, FsspecBackend, LimitExceededError, StorageError
from backends._paths import is_hidden
from backends.testing import CANONICAL_TREE, skill_md
from skills_core import SkillCatalog
from skills_core._bundle.writer import MANIFEST_NAME, InvalidSkillsError, build_bundle, write_bundle
from tests.backends.harnesses import LocalHarness
from tests.remote.harnesses import S3Harness
from tests.remote.servers import S3Server
from tests.remote.settings import FAST_RETRY, s3_options

VISIBLE = {
    path: data
    for path, data in CANONICAL_TREE.items()
    if path.split("/")[0] in ("alpha", "beta", "gamma") and not is_hidden(path)
}


async def local_source(root: Path, tree: dict[str, bytes] | None = None) -> Path:
    await LocalHarness(root).make_backend(tree or dict(CANONICAL_TREE))
    return root


async def test_bundles_are_byte_identical_whatever_the_storage_and_order(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    first = await build_bundle(FsspecBackend(str(await local_source(tmp_path / "a"))))
    # The same skills, written in the opposite order into a bucket.
    reversed_tree = dict(reversed(list(CANONICAL_TREE.items())))
    harness = S3Harness(s3_server, s3_client, bucket)
    second = await build_bundle(await harness.make_backend(reversed_tree))
    assert first.data == second.data
    assert first.sha256 == second.sha256
    assert first.skills == ("alpha", "beta", "gamma")
    assert first.files == len(VISIBLE)


async def test_members_are_sorted_dated_1980_and_listed_in_the_manifest(tmp_path: Path) -> None:
    bundle = await build_bundle(FsspecBackend(str(await local_source(tmp_path))))
    archive = zipfile.ZipFile(io.BytesIO(bundle.data))
    names = archive.namelist()
    assert names == sorted([*VISIBLE, MANIFEST_NAME])
    assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
    assert {name for name, mode in modes.items() if mode == 0o755} == {
        name for name in VISIBLE if name.split("/")[1] == "scripts"
    }
    assert set(modes.values()) == {0o644, 0o755}

    manifest = json.loads(archive.read(MANIFEST_NAME))
    assert manifest["format"] == "skillfs-bundle/1"
    alpha = manifest["skills"][0]
    assert (alpha["name"], alpha["description"]) == ("alpha", "A canonical test skill.")
    guide = CANONICAL_TREE["alpha/references/guide.md"]
    assert {
        "path": "references/guide.md",
        "size": len(guide),
        "sha256": hashlib.sha256(guide).hexdigest(),
        "mode": "0644",
    } in alpha["files"]
    assert [skill["name"] for skill in manifest["skills"]] == ["alpha", "beta", "gamma"]


async def test_the_manifest_keeps_the_files_of_skills_named_alike_apart(tmp_path: Path) -> None:
    tree = {
        "pdf/SKILL.md": skill_md("pdf"),
        "pdf/a.md": b"a",
        "pdf-tools/SKILL.md": skill_md("pdf-tools"),
        "pdf-tools/b.md": b"bb",
        "pdf2/SKILL.md": skill_md("pdf2"),
    }
    bundle = await build_bundle(FsspecBackend(str(await local_source(tmp_path, tree))))
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(bundle.data)).read(MANIFEST_NAME))
    listed = {
        skill["name"]: [(item["path"], item["size"]) for item in skill["files"]]
        for skill in manifest["skills"]
    }
    assert listed == {
        "pdf": [("SKILL.md", len(tree["pdf/SKILL.md"])), ("a.md", 1)],
        "pdf-tools": [("SKILL.md", len(tree["pdf-tools/SKILL.md"])), ("b.md", 2)],
        "pdf2": [("SKILL.md", len(tree["pdf2/SKILL.md"]))],
    }


async def test_a_bundle_loads_back_with_every_file(tmp_path: Path) -> None:
    out = tmp_path / "out" / "skills.zip"
    bundle = await write_bundle(await local_source(tmp_path / "src"), out)
    assert bundle.location == str(out)
    assert list(out.parent.iterdir()) == [out]  # written atomically, no temporary left

    catalog = SkillCatalog(BundleBackend(str(out)))
    report = await catalog.refresh()
    assert report.added == ("alpha", "beta", "gamma")
    assert report.errors == ()
    for path, data in VISIBLE.items():
        name, _, relative = path.partition("/")
        assert await catalog.read_resource(name, relative) == data


async def test_invalid_skills_stop_the_bundle_unless_skipped(tmp_path: Path) -> None:
    tree = {**CANONICAL_TREE, "broken/SKILL.md": b"---\nname: broken\n---\nNo description.\n"}
    source = await local_source(tmp_path / "src", tree)
    out = tmp_path / "skills.zip"

    with pytest.raises(InvalidSkillsError) as raised:
        await write_bundle(source, out)
    assert [problem.name for problem in raised.value.problems] == ["broken"]
    assert not out.exists()

    bundle = await write_bundle(source, out, skip_invalid=True)
    assert bundle.skills == ("alpha", "beta", "gamma")
    assert [problem.name for problem in bundle.skipped] == ["broken"]


async def test_a_spec_violation_is_bundled_unless_strict(tmp_path: Path) -> None:
    body = "---\nname: loose\ndescription: Fine.\nunknown-field: 1\n---\n# Loose\n"
    source = await local_source(tmp_path, {"loose/SKILL.md": body.encode()})
    bundle = await build_bundle(FsspecBackend(str(source)))
    assert bundle.skills == ("loose",)
    assert [problem.code for problem in bundle.warnings] == ["UNKNOWN_FIELD"]
    with pytest.raises(InvalidSkillsError, match="loose"):
        await build_bundle(FsspecBackend(str(source)), strict=True)


async def test_a_bundle_uploads_to_a_bucket_and_loads_from_there(
    tmp_path: Path, s3_server: S3Server, bucket: str
) -> None:
    source = await local_source(tmp_path)
    url = f"s3://{bucket}/bundles/skills.zip"
    progress: list[tuple[int, int]] = []
    bundle = await write_bundle(
        source,
        url,
        progress=lambda done, total: progress.append((done, total)),
        out_options=s3_options(s3_server),
    )
    assert bundle.location == url
    assert sorted(progress) == [(1, 3), (2, 3), (3, 3)]
    assert s3_server.log.count("PUT", "bundles/skills.zip") == 1

    backend = BundleBackend(f"zip://::{url}", retry=FAST_RETRY, **s3_options(s3_server))
    assert [ref.name for ref in await backend.list()] == ["alpha", "beta", "gamma"]


async def test_a_bundle_its_own_loader_would_refuse_is_not_written(tmp_path: Path) -> None:
    tree = {**CANONICAL_TREE, "beta/assets/zeros.bin": bytes(4 << 20)}
    source = await local_source(tmp_path / "src", tree)
    out = tmp_path / "skills.zip"
    with pytest.raises(LimitExceededError, match=r"would not load.*compression ratio"):
        await write_bundle(source, out)
    assert not out.exists()


async def test_an_unwritable_output_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"a file where a folder should be")
    with pytest.raises(StorageError, match="cannot write"):
        await write_bundle(await local_source(tmp_path / "src"), blocker / "skills.zip")
    assert sorted(await asyncio.to_thread(os.listdir, tmp_path)) == ["file", "src"]
