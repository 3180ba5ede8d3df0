"""Hostile skill archives from an index are refused, zip and tar.gz alike: the zip bundles' set.

Every site lists three skills: ``alpha`` (a good zip), ``gamma`` (a good tar.gz) and ``beta``,
whose archive is the hostile one. ``beta`` is refused with the reason; the others load.
"""

from __future__ import annotations

import tarfile
from collections.abc import Callable

import pytest

from backends import HttpIndexBackend, LimitExceededError, Limits, StorageError, UnsafePathError
from backends._index.document import INDEX_PATH
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.index.sites import ARCHIVERS, FOLDER, Site, entry, index, tar_gz, tar_gz_members
from tests.remote.settings import FAST_RETRY
from tests.remote.zips import (
    corrupt_member_data,
    declare_size,
    mark_encrypted,
    with_zip64_count,
    zip_bytes,
    zip_with,
)

BETA = {"SKILL.md": skill_md("beta"), "references/guide.md": b"# Guide\n"}
EXTENSION = {"zip": "zip", "tar.gz": "tar.gz"}


def serve(site: Site, beta: bytes, *, kind: str = "zip") -> None:
    """The three skills, ``beta`` from the archive given."""
    archives = {
        "alpha": ("alpha.zip", zip_bytes({"SKILL.md": skill_md("alpha"), "a.md": b"a"})),
        "beta": (f"beta.{EXTENSION[kind]}", beta),
        "gamma": ("gamma.tar.gz", tar_gz({"SKILL.md": skill_md("gamma"), "g.md": b"g"})),
    }
    entries = []
    for name, (url, data) in archives.items():
        site.put(f"{FOLDER}/{url}", data)
        entries.append(entry(name, "archive", url, data))
    site.put(INDEX_PATH, index(*entries))


async def load(site: Site, limits: Limits | None = None) -> SkillCatalog:
    backend = HttpIndexBackend(site.url, limits=limits or Limits(), retry=FAST_RETRY)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    return catalog


def refused(catalog: SkillCatalog) -> str:
    """The one problem's message, after checking the other skills loaded."""
    assert [meta.name for meta in catalog.list()] == ["alpha", "gamma"]
    [problem] = catalog.errors
    assert problem.name == "beta"
    return problem.message


def beta_zip(*extra: tuple[str, bytes, dict[str, bool]]) -> bytes:
    return zip_with(BETA, *extra)


def tar_with(*extra: tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]) -> bytes:
    members: list[tarfile.TarInfo | tuple[tarfile.TarInfo, bytes]] = [
        (tarfile.TarInfo(name), data) for name, data in BETA.items()
    ]
    return tar_gz_members(*members, *extra)


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


UNSAFE_NAMES = [
    ("../evil.sh", "must stay inside"),
    ("../../etc/cron.d/evil", "must stay inside"),
    ("/etc/passwd", "must be relative"),
    ("C:/Windows/evil.dll", "must be relative"),
    ("scripts\\..\\..\\evil", "unsafe"),
    ("scripts/../../evil", "must stay inside"),
    ("notes.md\nsha256:0  scripts/run.py", "control character"),
    ("scripts/\x1b[2Jrun.py", "control character"),
]


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
@pytest.mark.parametrize(("name", "reason"), UNSAFE_NAMES)
async def test_members_with_unsafe_names_refuse_the_skill(
    site: Site, kind: str, name: str, reason: str
) -> None:
    if kind == "zip":
        archive = beta_zip((name, b"#!/bin/sh\n", {}))
    else:
        archive = tar_with((tarfile.TarInfo(name), b"#!/bin/sh\n"))
    serve(site, archive, kind=kind)
    catalog = await load(site)
    message = refused(catalog)
    assert repr(name) in message
    assert reason in message
    assert catalog.errors[0].code == codes.UNSAFE_PATH


@pytest.mark.parametrize(
    ("kind", "make", "reason", "error"),
    [
        (
            "zip",
            lambda: beta_zip(("scripts/link", b"/etc/passwd", {"symlink": True})),
            "symlink members are refused",
            UnsafePathError,
        ),
        (
            "zip",
            lambda: mark_encrypted(beta_zip(("secret.txt", b"x", {})), "secret.txt"),
            "encrypted members are refused",
            StorageError,
        ),
        (
            "tar.gz",
            lambda: tar_with(member("scripts/link", tarfile.SYMTYPE, "/etc/passwd")),
            "symlink members are refused",
            UnsafePathError,
        ),
        (
            "tar.gz",
            lambda: tar_with(member("scripts/hard", tarfile.LNKTYPE, "SKILL.md")),
            "hard link members are refused",
            UnsafePathError,
        ),
        (
            "tar.gz",
            lambda: tar_with(member("dev/zero", tarfile.CHRTYPE)),
            "only regular files and folders are accepted",
            StorageError,
        ),
        (
            "tar.gz",
            lambda: tar_with(member("pipe", tarfile.FIFOTYPE)),
            "only regular files and folders are accepted",
            StorageError,
        ),
    ],
)
async def test_links_devices_and_encrypted_members_refuse_the_skill(
    site: Site, kind: str, make: Callable[[], bytes], reason: str, error: type[StorageError]
) -> None:
    serve(site, make(), kind=kind)
    catalog = await load(site)
    assert reason in refused(catalog)
    with pytest.raises(error, match=reason):
        await catalog.backend.read("beta", "references/guide.md")
    assert await catalog.read_resource("gamma", "g.md") == b"g"


async def test_a_zip_member_declaring_too_much_is_refused_without_inflating(site: Site) -> None:
    name = "assets/huge.bin"
    archive = declare_size(
        corrupt_member_data(beta_zip((name, b"tiny", {})), name), name, 100 << 20
    )
    serve(site, archive)
    catalog = await load(site)
    assert "declares 104857600 bytes unpacked, over the 16777216-byte limit" in refused(catalog)
    assert catalog.errors[0].code == codes.TOO_LARGE


async def test_a_tar_member_over_the_entry_limit_is_refused(site: Site) -> None:
    serve(site, tar_with((tarfile.TarInfo("assets/big.bin"), bytes(5000))), kind="tar.gz")
    catalog = await load(site, Limits(max_bundle_entry_bytes=4096))
    assert "declares 5000 bytes unpacked, over the 4096-byte limit" in refused(catalog)


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("zip", "over the 100:1 limit"),
        ("tar.gz", "inflates past 1048576 bytes: a compression ratio over the 100:1 limit"),
    ],
)
async def test_compression_bombs_are_refused(site: Site, kind: str, reason: str) -> None:
    tree = {**BETA, "zeros.bin": bytes(8 << 20)}
    serve(site, ARCHIVERS[kind](tree), kind=kind)
    catalog = await load(site)
    assert reason in refused(catalog)
    assert catalog.errors[0].code == codes.TOO_LARGE


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
async def test_duplicate_members_refuse_the_skill(site: Site, kind: str) -> None:
    if kind == "zip":
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive = beta_zip(("SKILL.md", skill_md("beta", "The other one."), {}))
    else:
        archive = tar_with((tarfile.TarInfo("SKILL.md"), skill_md("beta", "The other one.")))
    serve(site, archive, kind=kind)
    assert "duplicate entry" in refused(await load(site))


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
async def test_too_many_members_refuse_the_archive(site: Site, kind: str) -> None:
    tree = {**BETA, **{f"many/{n}.md": b"" for n in range(3)}}
    serve(site, ARCHIVERS[kind](tree), kind=kind)
    catalog = await load(site, Limits(max_bundle_entries=4))
    assert "over the" in refused(catalog)
    assert "4" in refused(catalog)


async def test_a_zip64_member_count_is_read_before_parsing(site: Site) -> None:
    serve(site, with_zip64_count(zip_bytes(BETA), 200_000))
    assert "declares 200000 members" in refused(await load(site))


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
@pytest.mark.parametrize(
    ("limits", "reason"),
    [
        (Limits(max_bundle_unpacked_bytes=100), "over the 100-byte limit"),
        (Limits(max_bundle_bytes=100), "over the 100-byte limit"),
    ],
)
async def test_whole_archive_limits(site: Site, kind: str, limits: Limits, reason: str) -> None:
    serve(site, ARCHIVERS[kind]({**BETA, "pad.txt": bytes(range(256)) * 4}), kind=kind)
    catalog = SkillCatalog(HttpIndexBackend(site.url, limits=limits, retry=FAST_RETRY))
    await catalog.refresh()
    problems = {problem.name: problem for problem in catalog.errors}
    assert reason in problems["beta"].message
    assert problems["beta"].code == codes.TOO_LARGE
    with pytest.raises(LimitExceededError):
        await catalog.backend.files("beta")


@pytest.mark.parametrize(
    ("kind", "make", "reason"),
    [
        ("zip", lambda: corrupt_member_data(zip_bytes(BETA), "SKILL.md"), "cannot read member"),
        ("zip", lambda: b"not an archive at all", "not a zip archive"),
        ("tar.gz", lambda: tar_gz(BETA)[:-40], "not a valid tar.gz archive"),
        ("tar.gz", lambda: b"not an archive at all", "not a valid tar.gz archive"),
    ],
)
async def test_what_cannot_be_read_fails_its_skill_only(
    site: Site, kind: str, make: Callable[[], bytes], reason: str
) -> None:
    serve(site, make(), kind=kind)
    catalog = await load(site)
    assert reason in refused(catalog)
    assert catalog.errors[0].code == codes.READ_FAILED


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
async def test_files_in_a_wrapping_folder_are_refused(site: Site, kind: str) -> None:
    serve(site, ARCHIVERS[kind](BETA, prefix="beta/"), kind=kind)
    assert "holds no SKILL.md at its root" in refused(await load(site))
