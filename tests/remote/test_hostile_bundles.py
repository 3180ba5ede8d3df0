"""Hostile zip bundles are refused from their metadata, and only as much as needed.

A bad member refuses the skill holding it (or is reported on its own when it belongs to no
skill); the other skills load. Whole-bundle limits refuse the archive, and a catalog keeps its
last good snapshot.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from backends import (
    BundleBackend,
    FsspecBackend,
    LimitExceededError,
    Limits,
    StorageError,
    UnsafePathError,
)
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.remote.harnesses import S3Harness, replace_file
from tests.remote.servers import FakeGithub, S3Server
from tests.remote.zips import (
    corrupt_member_data,
    declare_size,
    mark_encrypted,
    with_zip64_count,
    zip_bytes,
    zip_with,
)

GOOD = {
    "alpha/SKILL.md": skill_md("alpha"),
    "alpha/references/guide.md": b"# Guide\n",
    "beta/SKILL.md": skill_md("beta"),
    "gamma/SKILL.md": skill_md("gamma"),
}


def bundle(*extra: tuple[str, bytes, dict[str, bool]]) -> bytes:
    """The good skills plus hostile members ``(name, data, {"symlink": True})``."""
    return zip_with(GOOD, *extra)


async def load(path: Path, data: bytes, limits: Limits | None = None) -> SkillCatalog:
    replace_file(path, data)
    catalog = SkillCatalog(BundleBackend(str(path), limits=limits or Limits()))
    await catalog.refresh()
    return catalog


def names(catalog: SkillCatalog) -> list[str]:
    return [meta.name for meta in catalog.list()]


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        ("../evil.sh", "must stay inside"),
        ("../../etc/cron.d/evil", "must stay inside"),
        ("/etc/passwd", "must be relative"),
        ("C:/Windows/evil.dll", "must be relative"),
        ("alpha\\..\\..\\evil", "unsafe"),
    ],
)
async def test_members_escaping_the_bundle_are_reported_alone(
    tmp_path: Path, member: str, reason: str
) -> None:
    catalog = await load(tmp_path / "b.zip", bundle((member, b"#!/bin/sh\n", {})))
    assert names(catalog) == ["alpha", "beta", "gamma"]
    [problem] = catalog.errors
    assert problem.name == member
    assert problem.location.endswith(f"b.zip!/{member}")
    assert f"refused entry {member!r}" in problem.message
    assert reason in problem.message
    assert problem.code == codes.UNSAFE_PATH


@pytest.mark.parametrize(
    ("member", "flag", "reason", "error"),
    [
        ("beta/../../evil", "", "must stay inside", UnsafePathError),
        ("beta/scripts/link", "symlink", "symlink members are refused", UnsafePathError),
        ("beta/secret.txt", "encrypted", "encrypted members are refused", StorageError),
    ],
)
async def test_a_bad_member_refuses_its_skill_and_the_rest_load(
    tmp_path: Path, member: str, flag: str, reason: str, error: type[StorageError]
) -> None:
    code = codes.UNSAFE_PATH if error is UnsafePathError else codes.READ_FAILED
    archive = bundle((member, b"/etc/shadow", {"symlink": flag == "symlink"}))
    if flag == "encrypted":
        archive = mark_encrypted(archive, member)
    catalog = await load(tmp_path / "b.zip", archive)
    assert names(catalog) == ["alpha", "gamma"]
    [problem] = catalog.errors
    assert problem.name == "beta"
    assert problem.code == code
    assert member in problem.message
    assert reason in problem.message
    with pytest.raises(error, match=reason):
        await catalog.backend.read("beta", "SKILL.md", max_bytes=1 << 20)
    assert await catalog.read_resource("alpha", "references/guide.md") == b"# Guide\n"


async def test_a_declared_size_past_the_limit_is_refused_without_inflating(
    tmp_path: Path,
) -> None:
    member = "beta/assets/huge.bin"
    archive = bundle((member, b"tiny", {}))
    # Garbage instead of deflate data, and a declared size of 100 MiB: only the declaration
    # is ever looked at, or the refusal would be an inflate error instead.
    archive = declare_size(corrupt_member_data(archive, member), member, 100 << 20)
    catalog = await load(tmp_path / "b.zip", archive)
    assert names(catalog) == ["alpha", "gamma"]
    [problem] = catalog.errors
    assert "declares 104857600 bytes unpacked, over the 16777216-byte limit" in problem.message
    assert problem.code == codes.TOO_LARGE
    with pytest.raises(LimitExceededError):
        await catalog.backend.files("beta")


async def test_a_compression_ratio_past_the_limit_is_refused(tmp_path: Path) -> None:
    catalog = await load(tmp_path / "b.zip", bundle(("gamma/zeros.bin", bytes(4 << 20), {})))
    assert names(catalog) == ["alpha", "beta"]
    [problem] = catalog.errors
    assert "compression ratio" in problem.message
    assert "over the 100:1 limit" in problem.message
    assert problem.code == codes.TOO_LARGE


async def test_duplicate_members_refuse_their_skill(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="Duplicate name"):
        archive = bundle(("beta/SKILL.md", skill_md("beta", "The other one."), {}))
    catalog = await load(tmp_path / "b.zip", archive)
    assert names(catalog) == ["alpha", "gamma"]
    assert "duplicate entry" in catalog.errors[0].message


async def test_more_members_than_the_limit_refuse_the_bundle(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    catalog = await load(path, bundle(), Limits(max_bundle_entries=100))
    crowded = zip_bytes({**GOOD, **{f"alpha/many/{n}": b"" for n in range(100)}})
    replace_file(path, crowded)

    report = await catalog.refresh()
    assert report.failure is not None
    assert "bundle declares 104 members, over the 100-member limit" in report.failure.message
    assert names(catalog) == ["alpha", "beta", "gamma"]  # the last good catalog is kept


async def test_a_zip64_member_count_is_read_before_parsing(tmp_path: Path) -> None:
    catalog = await load(tmp_path / "b.zip", with_zip64_count(bundle(), 200_000))
    assert catalog.list() == ()
    with pytest.raises(LimitExceededError, match="declares 200000 members"):
        await catalog.backend.list()


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (Limits(max_bundle_unpacked_bytes=100), "over the 100-byte limit"),
        (Limits(max_bundle_bytes=100), "bytes, over the 100-byte limit"),
    ],
)
async def test_whole_bundle_limits(tmp_path: Path, limits: Limits, message: str) -> None:
    path = tmp_path / "b.zip"
    replace_file(path, bundle())
    with pytest.raises(LimitExceededError, match=message):
        await BundleBackend(str(path), limits=limits).list()


async def test_a_corrupt_member_fails_its_skill_only(tmp_path: Path) -> None:
    catalog = await load(tmp_path / "b.zip", corrupt_member_data(bundle(), "beta/SKILL.md"))
    assert names(catalog) == ["alpha", "gamma"]
    [problem] = catalog.errors
    assert (problem.name, problem.code) == ("beta", codes.READ_FAILED)
    assert "cannot read member" in problem.message


@pytest.mark.parametrize(
    "make",
    [
        lambda: b"not a zip at all",
        lambda: bundle()[:-30],
    ],
)
async def test_what_is_not_a_zip_is_refused(tmp_path: Path, make: Callable[[], bytes]) -> None:
    path = tmp_path / "b.zip"
    replace_file(path, make())
    with pytest.raises(StorageError, match="zip"):
        await BundleBackend(str(path)).list()


async def test_a_wrapping_folder_and_archiver_litter_are_handled(tmp_path: Path) -> None:
    tree = {f"release-1.0/{path}": data for path, data in GOOD.items()}
    tree["__MACOSX/release-1.0/._alpha"] = b"resource fork"
    catalog = await load(tmp_path / "b.zip", zip_bytes(tree))
    assert names(catalog) == ["alpha", "beta", "gamma"]
    assert catalog.errors == ()
    assert (await catalog.get("alpha")).location.endswith("b.zip!/release-1.0/alpha/SKILL.md")


async def test_a_chained_url_names_the_folder_inside_the_archive(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    tree = {f"packs/{path}": data for path, data in GOOD.items()} | {"other/x/SKILL.md": b""}
    replace_file(path, zip_bytes(tree))
    backend = BundleBackend(f"zip://packs::{path}")
    assert [ref.name for ref in await backend.list()] == ["alpha", "beta", "gamma"]


async def test_unsafe_keys_in_a_bucket_are_refused_like_members(
    s3_server: S3Server, s3_client: Any, bucket: str
) -> None:
    harness = S3Harness(s3_server, s3_client, bucket)
    harness.put_tree({**GOOD, "beta/..\\..\\evil": b"x", "../outside": b"y"})
    catalog = SkillCatalog(harness.backend())
    await catalog.refresh()
    assert names(catalog) == ["alpha", "gamma"]
    outside, beta = catalog.errors
    assert outside.name == "../outside"
    assert "must stay inside" in outside.message
    assert beta.name == "beta"
    assert "'beta/..\\\\..\\\\evil': unsafe resource path" in beta.message


@pytest.mark.parametrize(
    "case",
    [
        ("zip", "beta/notes.md\nsha256:0  scripts/run.py"),
        ("s3", "beta/scripts/\x1b[2J\rrun.py"),  # moto refuses keys holding a newline
    ],
)
async def test_a_control_character_in_a_name_refuses_its_skill(
    tmp_path: Path, s3_server: S3Server, s3_client: Any, bucket: str, case: tuple[str, str]
) -> None:
    """A name that could spell a line of its own (a content digest's, an ``error:``) is refused."""
    store, odd = case
    if store == "zip":
        catalog = await load(tmp_path / "b.zip", bundle((odd, b"#!/bin/sh\n", {})))
    else:
        harness = S3Harness(s3_server, s3_client, bucket)
        harness.put_tree({**GOOD, odd: b"#!/bin/sh\n"})
        catalog = SkillCatalog(harness.backend())
        await catalog.refresh()
    assert names(catalog) == ["alpha", "gamma"]
    [problem] = catalog.errors
    assert (problem.name, problem.code) == ("beta", codes.UNSAFE_PATH)
    assert f"{odd!r}: control character in a file name" in problem.message


async def test_a_symlink_in_a_github_repository_refuses_its_skill(
    github: FakeGithub, repo: str
) -> None:
    files = github.repos[("org", repo, "main")]
    files.update({f"skills/{path}": data for path, data in GOOD.items()})
    files["skills/beta/scripts/run.sh"] = b"/etc/passwd"
    github.symlinks.add("skills/beta/scripts/run.sh")
    catalog = SkillCatalog(FsspecBackend(f"github://org:{repo}@main/skills"))
    await catalog.refresh()
    assert names(catalog) == ["alpha", "gamma"]
    [problem] = catalog.errors
    assert problem.message == "refused entries: 'beta/scripts/run.sh': symlinks are refused"


async def test_a_truncated_github_tree_is_refused_not_half_served(
    github: FakeGithub, repo: str
) -> None:
    github.repos[("org", repo, "main")].update(
        {f"skills/{path}": data for path, data in GOOD.items()}
    )
    catalog = SkillCatalog(FsspecBackend(f"github://org:{repo}@main/skills"))
    await catalog.refresh()
    github.truncated = True
    try:
        report = await catalog.refresh()
    finally:
        github.truncated = False
    assert report.failure is not None
    assert "GitHub truncated the tree listing" in report.failure.message
    assert names(catalog) == ["alpha", "beta", "gamma"]
