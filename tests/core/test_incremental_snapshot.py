"""A refresh updates the snapshot in proportion to what changed, and ends where a rebuild would.

``CatalogSnapshot.placed`` counts the entries an update placed: the test asserts work by
counting it, never by timing.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends import MemoryBackend, SkillNotFoundError
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core._catalog.snapshot import CatalogSnapshot, ReloadReport
from tests.backends.harnesses import LocalHarness

SKILLS = 200


async def test_one_edited_skill_of_many_is_the_one_entry_a_refresh_places(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    tree = {f"skill-{n:03d}/SKILL.md": skill_md(f"skill-{n:03d}") for n in range(SKILLS)}
    catalog = SkillCatalog(await harness.make_backend(tree))
    assert len((await catalog.refresh()).added) == SKILLS
    assert catalog.snapshot.placed == SKILLS  # a first load places everything

    await harness.write("skill-042/SKILL.md", skill_md("skill-042", "Edited."))
    report = await catalog.refresh()
    assert report.changed == ("skill-042",)
    assert report.fetched == 1
    assert len(report.unchanged) == SKILLS - 1
    assert catalog.snapshot.placed == 1
    assert catalog.metadata("skill-042").description == "Edited."

    unchanged = catalog.snapshot
    assert not (await catalog.refresh()).has_changes
    assert catalog.snapshot is unchanged  # nothing placed, nothing rebuilt


async def test_adding_and_removing_one_skill_places_one_entry_each(tmp_path: Path) -> None:
    harness = LocalHarness(tmp_path)
    tree = {f"skill-{n:03d}/SKILL.md": skill_md(f"skill-{n:03d}") for n in range(SKILLS)}
    catalog = SkillCatalog(await harness.make_backend(tree))
    await catalog.refresh()

    await harness.write("skill-0005/SKILL.md", skill_md("skill-0005"))  # sorts among the rest
    report = await catalog.refresh()
    assert report.added == ("skill-0005",)
    assert catalog.snapshot.placed == 1
    assert list(catalog.snapshot.entries) == sorted(catalog.snapshot.entries)
    assert [meta.name for meta in catalog.list()] == sorted(catalog.snapshot.names)

    await harness.delete_skill("skill-0005")
    report = await catalog.refresh()
    assert report.removed == ("skill-0005",)
    assert catalog.snapshot.placed == 1


async def test_when_the_served_duplicate_goes_the_next_by_folder_takes_its_name() -> None:
    backend = MemoryBackend(
        {
            "a-pdf": {"SKILL.md": skill_md("pdf", "First.")},
            "b-pdf": {"SKILL.md": skill_md("pdf", "Second.")},
            "other": {"SKILL.md": skill_md("other")},
        }
    )
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    assert catalog.metadata("pdf").description == "First."
    [duplicate] = [problem for problem in catalog.errors if problem.code == codes.DUPLICATE_NAME]
    assert duplicate.location == "memory://b-pdf/SKILL.md"

    backend.remove("a-pdf")
    report = await catalog.refresh()
    assert report.changed == ("pdf",)
    assert catalog.metadata("pdf").description == "Second."
    assert not catalog.errors
    assert catalog.snapshot.placed == 2  # the removed folder, and the claimant promoted


FOLDERS = ("f0", "f1", "f2", "f3", "f4")
NAMES = ("alpha", "beta", "gamma")
# (folder, None) removes the folder; (folder, name) writes a skill named so; "" is refused.
Operation = tuple[str, str | None]
operations = st.lists(
    st.tuples(st.sampled_from(FOLDERS), st.sampled_from((*NAMES, "", None))),
    min_size=1,
    max_size=12,
)


def apply(backend: MemoryBackend, operation: Operation, step: int) -> None:
    folder, name = operation
    if name is None:
        with contextlib.suppress(SkillNotFoundError):
            backend.remove(folder)
        return
    description = "" if name == "" else f"Version {step}."
    backend.put(folder, {"SKILL.md": skill_md(name or folder, description)})


def comparable(snapshot: CatalogSnapshot) -> tuple[object, ...]:
    """Everything a snapshot holds but how it was made; mappings with their order."""
    return tuple(
        list(value.items()) if isinstance(value, dict) else value
        for value in snapshot._replace(placed=0)
    )


def oracle(before: CatalogSnapshot, after: CatalogSnapshot) -> tuple[tuple[str, ...], ...]:
    """added, changed, removed as a full comparison of both snapshots finds them."""
    old, new = before.loaded, after.loaded
    return (
        tuple(name for name in new if name not in old),
        tuple(
            name
            for name in new
            if name in old and old[name] is not new[name] and not old[name].same_content(new[name])
        ),
        tuple(name for name in old if name not in new),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_updates_end_where_a_rebuild_would(steps: list[Operation]) -> None:
    backend = MemoryBackend({"f0": {"SKILL.md": skill_md("alpha")}})
    catalog = SkillCatalog(backend)
    asyncio.run(catalog.refresh())
    for step, operation in enumerate(steps):
        apply(backend, operation, step)
        before = catalog.snapshot
        report: ReloadReport = asyncio.run(catalog.refresh())
        rebuilt = SkillCatalog(backend)
        asyncio.run(rebuilt.refresh())
        assert comparable(catalog.snapshot) == comparable(rebuilt.snapshot)
        assert (report.added, report.changed, report.removed) == oracle(before, catalog.snapshot)
        assert set(report.unchanged) == set(catalog.snapshot.names) - {
            *report.added,
            *report.changed,
        }
