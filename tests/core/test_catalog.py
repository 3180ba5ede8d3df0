"""SkillCatalog: what loads, what is refused, and what a refresh re-reads."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from backends import CompositeBackend, LocalBackend, MemoryBackend
from backends._errors import (
    ResourceNotFoundError,
    SkillNotFoundError,
    StorageError,
    UnsafePathError,
)
from backends._limits import Limits
from backends.testing import skill_md
from skills_core import FormatLimits, SkillCatalog
from skills_core import _codes as codes
from tests.support.backends import CountingBackend

LONG_DESCRIPTION = "Build apps with the Claude API. " * 34  # 1,088 characters, like claude-api

BROKEN: dict[str, dict[str, bytes | str]] = {
    "no-frontmatter": {"SKILL.md": "# Just markdown\n"},
    "unclosed": {"SKILL.md": "---\nname: unclosed\ndescription: d\n"},
    "bad-yaml": {"SKILL.md": "---\nname: bad-yaml\ndescription: [oops\n---\n"},
    "slash-name": {"SKILL.md": "---\nname: a/b\ndescription: d\n---\n"},
    "no-description": {"SKILL.md": "---\nname: no-description\n---\n"},
    "not-utf8": {"SKILL.md": b"---\nname: not-utf8\ndescription: \xff\n---\n"},
    "list-yaml": {"SKILL.md": "---\n- a\n---\n"},
}
EXPECTED_CODES = {
    "no-frontmatter": codes.NO_FRONTMATTER,
    "unclosed": codes.UNCLOSED_FRONTMATTER,
    "bad-yaml": codes.INVALID_YAML,
    "slash-name": codes.NAME_INVALID,
    "no-description": codes.DESCRIPTION_MISSING,
    "not-utf8": codes.NOT_UTF8,
    "list-yaml": codes.NOT_A_MAPPING,
}
GOOD = {name: {"SKILL.md": skill_md(name)} for name in ("alpha", "beta", "gamma")}
WARNED = {
    "claude-api": {"SKILL.md": skill_md("claude-api", LONG_DESCRIPTION)},
    "typed": {
        "SKILL.md": "---\nname: typed\ndescription: d\ncompatibility: yes\nowner: me\n---\nB"
    },
}
RENAMED = {  # lenient catalogs serve these under their frontmatter name, or their folder's
    "no-name": {"SKILL.md": "---\ndescription: d\n---\n"},
    "wrong-name": {"SKILL.md": "---\nname: other\ndescription: d\n---\n"},
    "upper": {"SKILL.md": "---\nname: Upper\ndescription: d\n---\n"},
}


@pytest.fixture
def memory() -> MemoryBackend:
    return MemoryBackend({**GOOD, **BROKEN, **WARNED})


@pytest.fixture
def mixed() -> MemoryBackend:
    """Every kind of skill: good, broken, warned, and served under another name."""
    return MemoryBackend({**GOOD, **BROKEN, **WARNED, **RENAMED})


async def test_every_good_skill_loads_and_every_broken_one_is_reported(
    mixed: MemoryBackend,
) -> None:
    catalog = SkillCatalog(mixed)
    report = await catalog.refresh()
    assert report.ok
    served = ("Upper", "alpha", "beta", "claude-api", "gamma", "no-name", "other", "typed")
    assert tuple(meta.name for meta in catalog.list()) == served
    assert report.added == served
    found: dict[str | None, set[str]] = {}
    for problem in catalog.errors:
        found.setdefault(problem.name, set()).add(problem.code)
        assert problem.location == f"memory://{problem.name}/SKILL.md"
        assert problem.message
    assert found.keys() == EXPECTED_CODES.keys()
    assert all(EXPECTED_CODES[name] in found[name] for name in EXPECTED_CODES)  # type: ignore[index]
    assert report.errors == catalog.errors


async def test_spec_violations_load_with_warnings(mixed: MemoryBackend) -> None:
    catalog = SkillCatalog(mixed)
    await catalog.refresh()
    warnings = {(problem.name, problem.code) for problem in catalog.warnings}
    assert ("claude-api", codes.TOO_LONG) in warnings
    assert ("typed", codes.WRONG_TYPE) in warnings
    assert ("typed", codes.UNKNOWN_FIELD) in warnings
    typed = catalog.metadata("typed")
    assert typed.compatibility is None
    assert typed.extra == {"compatibility": True, "owner": "me"}
    assert catalog.metadata("claude-api").description == LONG_DESCRIPTION.strip()
    assert ("no-name", codes.NAME_MISSING) in warnings
    assert ("other", codes.NAME_MISMATCH) in warnings
    assert ("Upper", codes.NAME_INVALID) in warnings


async def test_strict_catalog_refuses_every_spec_violation(mixed: MemoryBackend) -> None:
    catalog = SkillCatalog(mixed, strict=True)
    await catalog.refresh()
    assert [meta.name for meta in catalog.list()] == ["alpha", "beta", "gamma"]
    refused = {problem.name for problem in catalog.errors}
    assert {"claude-api", "typed", *RENAMED} <= refused
    assert catalog.warnings == ()


async def test_no_change_refresh_fetches_nothing(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)
    first = await catalog.refresh()
    assert first.fetched == len(GOOD) + len(BROKEN) + len(WARNED)
    backend.fetched.clear()
    second = await catalog.refresh()
    assert backend.fetched == []
    assert second.fetched == 0
    assert second.unchanged == first.added
    assert not second.has_changes
    assert second.errors == first.errors  # broken skills stay reported without being re-read


async def test_only_changed_skills_are_fetched(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    backend.fetched.clear()
    memory.put("beta", {"SKILL.md": skill_md("beta", "A new description.")})
    memory.put("delta", {"SKILL.md": skill_md("delta")})
    memory.remove("gamma")
    memory.put("upper", {"SKILL.md": skill_md("upper")})  # a broken skill gets fixed
    report = await catalog.refresh()
    assert sorted(backend.fetched) == ["beta", "delta", "upper"]
    assert report.changed == ("beta",)
    assert report.added == ("delta", "upper")
    assert report.removed == ("gamma",)
    assert "alpha" in report.unchanged
    assert catalog.metadata("beta").description == "A new description."
    assert "upper" not in {problem.name for problem in catalog.errors}


async def test_rewritten_with_equal_bytes_counts_as_unchanged(memory: MemoryBackend) -> None:
    catalog = SkillCatalog(memory)
    await catalog.refresh()
    memory.put("alpha", {"SKILL.md": skill_md("alpha")})  # new version, same bytes
    report = await catalog.refresh()
    assert report.fetched == 1
    assert report.changed == ()
    assert "alpha" in report.unchanged
    again = await catalog.refresh()
    assert again.fetched == 0  # the new fingerprint was remembered


async def test_touched_local_file_with_equal_bytes_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "alpha").mkdir()
    skill = tmp_path / "alpha" / "SKILL.md"
    skill.write_bytes(skill_md("alpha"))
    catalog = SkillCatalog(LocalBackend(tmp_path))
    await catalog.refresh()
    stat = skill.stat()
    os.utime(skill, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    report = await catalog.refresh()
    assert report.fetched == 1
    assert report.unchanged == ("alpha",)


async def test_failed_listing_keeps_the_last_good_catalog(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    before = catalog.snapshot
    backend.fail_listing = StorageError("bucket unreachable", location="s3://bucket/skills")
    report = await catalog.refresh()
    assert not report.ok
    assert report.failure is not None
    assert report.failure.code == codes.LIST_FAILED
    assert "bucket unreachable" in report.failure.message
    assert catalog.snapshot is before
    assert len(catalog) == 5
    assert report.unchanged == tuple(meta.name for meta in catalog.list())


async def test_a_transient_fetch_failure_keeps_the_previous_version(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    memory.put("beta", {"SKILL.md": skill_md("beta", "Newer.")})
    backend.fail_fetch["beta"] = StorageError("503 SlowDown", location="s3://b/beta/SKILL.md")
    report = await catalog.refresh()
    assert catalog.metadata("beta").description == "A canonical test skill."
    assert [(p.name, p.code) for p in report.errors if p.name == "beta"] == [
        ("beta", codes.READ_FAILED)
    ]
    del backend.fail_fetch["beta"]
    healed = await catalog.refresh()
    assert healed.changed == ("beta",)
    assert catalog.metadata("beta").description == "Newer."


async def test_a_new_skill_that_cannot_be_fetched_is_reported(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    backend.fail_fetch["alpha"] = StorageError("connection reset", location="s3://b/alpha")
    catalog = SkillCatalog(backend)
    report = await catalog.refresh()
    assert "alpha" not in catalog
    assert ("alpha", codes.READ_FAILED) in {(p.name, p.code) for p in report.errors}
    assert "beta" in catalog


async def test_oversize_skill_md_is_refused_from_its_listed_size() -> None:
    backend = CountingBackend(MemoryBackend({**GOOD, "big": {"SKILL.md": skill_md("big") * 50}}))
    catalog = SkillCatalog(backend, limits=Limits(max_skill_md_bytes=1000))
    await catalog.refresh()
    assert "big" not in backend.fetched
    assert [(p.name, p.code) for p in catalog.errors] == [("big", codes.TOO_LARGE)]


async def test_the_catalog_applies_its_format_limits() -> None:
    aliased = b"---\nname: aliased\ndescription: &d shared\nmetadata:\n  summary: *d\n---\nBody.\n"
    skills = {**GOOD, "aliased": {"SKILL.md": aliased}}
    default = SkillCatalog(MemoryBackend(skills))
    await default.refresh()
    assert default.errors == ()

    no_aliases = FormatLimits(max_yaml_aliases=0)
    catalog = SkillCatalog(MemoryBackend(skills), format_limits=no_aliases)
    assert catalog.format_limits == no_aliases
    await catalog.refresh()
    assert [(p.name, p.code) for p in catalog.errors] == [("aliased", codes.YAML_ALIASES)]

    tiny = SkillCatalog(MemoryBackend(GOOD), format_limits=FormatLimits(max_frontmatter_bytes=8))
    await tiny.refresh()
    assert sorted((p.name, p.code) for p in tiny.errors) == [
        (name, codes.TOO_LARGE) for name in sorted(GOOD)
    ]


async def test_readers_never_see_a_half_applied_refresh(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    before = [meta.name for meta in catalog.list()]
    for name in ("delta", "epsilon"):
        memory.put(name, {"SKILL.md": skill_md(name)})
    memory.remove("alpha")
    backend.gate = asyncio.Event()
    refreshing = asyncio.create_task(catalog.refresh())
    await asyncio.wait_for(backend.at_gate.wait(), timeout=5)  # listed, fetching the new ones
    assert [meta.name for meta in catalog.list()] == before
    backend.gate.set()
    await refreshing
    assert [meta.name for meta in catalog.list()] == [
        "beta",
        "claude-api",
        "delta",
        "epsilon",
        "gamma",
        "typed",
    ]


async def test_concurrent_refreshes_are_serialised(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    catalog = SkillCatalog(backend)
    first, second = await asyncio.gather(catalog.refresh(), catalog.refresh())
    assert len(first.added) == 5
    assert second.added == ()
    assert second.fetched == 0


async def test_get_returns_body_and_current_files() -> None:
    backend = MemoryBackend(
        {"pdf": {"SKILL.md": skill_md("pdf", body="# PDF\n\nSteps."), "references/a.md": "A"}}
    )
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    skill = await catalog.get("pdf")
    assert skill.name == "pdf"
    assert skill.body == "# PDF\n\nSteps."
    assert [entry.path for entry in skill.files] == ["SKILL.md", "references/a.md"]
    assert await catalog.read_resource("pdf", "references/a.md") == b"A"
    with pytest.raises(ResourceNotFoundError):
        await catalog.read_resource("pdf", "references/missing.md")
    with pytest.raises(UnsafePathError):
        await catalog.read_resource("pdf", "../other/SKILL.md")


async def test_refused_skills_are_not_served_and_say_why(memory: MemoryBackend) -> None:
    catalog = SkillCatalog(memory)
    await catalog.refresh()
    with pytest.raises(SkillNotFoundError, match="cannot name a skill"):
        await catalog.get("slash-name")
    with pytest.raises(SkillNotFoundError):
        await catalog.read_resource("missing", "SKILL.md")
    assert "slash-name" not in catalog


async def test_resource_reads_obey_the_size_limit() -> None:
    backend = MemoryBackend({"pdf": {"SKILL.md": skill_md("pdf"), "assets/big.bin": b"x" * 2048}})
    catalog = SkillCatalog(backend, limits=Limits(max_read_bytes=1024))
    await catalog.refresh()
    with pytest.raises(StorageError, match="over the 1024-byte limit"):
        await catalog.read_resource("pdf", "assets/big.bin")


async def test_shadowed_skills_are_reported_as_warnings(tmp_path: Path) -> None:
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha" / "SKILL.md").write_bytes(skill_md("alpha", "Project version."))
    org = MemoryBackend({"alpha": {"SKILL.md": skill_md("alpha", "Org version.")}, **GOOD})
    catalog = SkillCatalog(CompositeBackend([LocalBackend(tmp_path), org]))
    await catalog.refresh()
    assert catalog.metadata("alpha").description == "Project version."
    shadowed = [p for p in catalog.warnings if p.code == codes.SHADOWED]
    assert [(p.name, p.location) for p in shadowed] == [("alpha", "memory://alpha/SKILL.md")]


async def test_symlinked_skill_md_escaping_its_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_bytes(skill_md("evil"))
    root = tmp_path / "skills"
    (root / "evil").mkdir(parents=True)
    (root / "evil" / "SKILL.md").symlink_to(outside)
    (root / "alpha").mkdir()
    (root / "alpha" / "SKILL.md").write_bytes(skill_md("alpha"))
    catalog = SkillCatalog(LocalBackend(root))
    await catalog.refresh()
    assert [meta.name for meta in catalog.list()] == ["alpha"]
    assert [(p.name, p.code) for p in catalog.errors] == [("evil", codes.UNSAFE_PATH)]
    assert "leaves the skill folder" in catalog.errors[0].message


async def test_a_first_refresh_that_fails_says_there_is_no_catalog_yet(
    memory: MemoryBackend,
) -> None:
    backend = CountingBackend(memory)
    backend.fail_listing = StorageError("no such bucket", location="s3://missing")
    report = await SkillCatalog(backend).refresh()
    assert report.failure is not None
    assert report.failure.message == "listing failed (no catalog yet): s3://missing: no such bucket"


async def test_a_failed_report_raises_the_listing_error_itself(memory: MemoryBackend) -> None:
    backend = CountingBackend(memory)
    missing = StorageError("no such bucket", location="s3://missing")
    backend.fail_listing = missing
    catalog = SkillCatalog(backend)
    with pytest.raises(StorageError) as caught:
        (await catalog.refresh()).raise_for_failure()
    assert caught.value is missing

    backend.fail_listing = ConnectionResetError("peer reset")
    with pytest.raises(StorageError, match="cannot list skills: peer reset") as wrapped:
        (await catalog.refresh()).raise_for_failure()
    assert isinstance(wrapped.value.__cause__, ConnectionResetError)

    backend.fail_listing = None
    (await catalog.refresh()).raise_for_failure()  # a good listing raises nothing


async def test_a_refresh_reports_its_progress_batch_by_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("skills_core._catalog.loading.FETCH_BATCH", 4)
    skills = {f"s{index}": {"SKILL.md": skill_md(f"s{index}")} for index in range(10)}
    backend = MemoryBackend(skills)
    catalog = SkillCatalog(backend)
    heard: list[tuple[int, int]] = []
    await catalog.refresh(progress=lambda done, total: heard.append((done, total)))
    assert heard == [(4, 10), (8, 10), (10, 10)]

    backend.put("s0", {"SKILL.md": skill_md("s0", "Changed.")})
    heard.clear()
    await catalog.refresh(progress=lambda done, total: heard.append((done, total)))
    assert heard == [(1, 1)]  # only what changed is read
