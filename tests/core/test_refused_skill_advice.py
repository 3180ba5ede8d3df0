"""A refused skill's entry keeps its advice, so `skillfs validate` can report every problem.

The catalog's own ``warnings`` still cover loaded skills only.
"""

from __future__ import annotations

from backends import MemoryBackend
from skills_core import SkillCatalog
from skills_core import _codes as codes

MISNAMED_AND_EMPTY = "---\nname: other\ndescription: d\n---\n"
TOO_LONG_AND_EMPTY = "---\nname: wordy\ndescription: " + "x" * 1100 + "\n---\n"


def codes_of(problems: object) -> list[str]:
    return [problem.code for problem in problems]  # type: ignore[attr-defined]


async def test_strict_identity_refusal_keeps_advice_on_the_entry() -> None:
    backend = MemoryBackend({"misnamed": {"SKILL.md": MISNAMED_AND_EMPTY}})
    catalog = SkillCatalog(backend, strict=True)
    report = await catalog.refresh()
    entry = catalog.snapshot.entries["misnamed"]
    assert not entry.loaded
    assert codes_of(entry.errors) == [codes.NAME_MISMATCH]
    assert codes_of(entry.warnings) == [codes.EMPTY_BODY]
    assert codes_of(report.errors) == [codes.NAME_MISMATCH]
    assert report.warnings == catalog.warnings == ()


async def test_strict_refusal_keeps_advice_and_lenient_load_warns() -> None:
    skills = {"wordy": {"SKILL.md": TOO_LONG_AND_EMPTY}}
    strict = SkillCatalog(MemoryBackend(skills), strict=True)
    await strict.refresh()
    entry = strict.snapshot.entries["wordy"]
    assert codes_of(entry.errors) == [codes.TOO_LONG]
    assert codes_of(entry.warnings) == [codes.EMPTY_BODY]
    assert strict.warnings == ()

    lenient = SkillCatalog(MemoryBackend(skills))
    await lenient.refresh()
    assert "wordy" in lenient
    assert lenient.errors == ()
    assert codes_of(lenient.warnings) == [codes.TOO_LONG, codes.EMPTY_BODY]
