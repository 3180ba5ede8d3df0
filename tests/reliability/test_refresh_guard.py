"""No single skill can make ``refresh()`` raise, and a failed refresh keeps the last catalog.

Issue #8.1: anything raised while judging one skill used to escape ``refresh()``, so no catalog
was built (or the previous one froze). Each skill is now judged under its own guard, YAML
integers longer than Python can print are refused for their skill alone, and whatever else
goes wrong after the listing keeps the last good snapshot.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends import MemoryBackend, SkillDocument
from backends.capabilities import FetchResult
from backends.testing import skill_md
from skills_core import SkillCatalog
from skills_core import _codes as codes
from tests.support.backends import CountingBackend
from tests.support.examples import examples

GOOD = {name: {"SKILL.md": skill_md(name)} for name in ("alpha", "beta", "gamma")}
HOSTILE = "zz-hostile"  # sorts last, so a good skill always wins a name it shares
HOSTILE_LOCATION = f"memory://{HOSTILE}/SKILL.md"
LONG_INTEGERS = {
    "decimal": "1" * 5000,
    "hex": "0x" + "f" * 4000,
    "octal": "0" + "7" * 4400,
    "binary": "0b" + "1" * 14400,
    "sexagesimal": ":".join(["1"] + ["59"] * 2200),
    "in-metadata": "\n  build: " + "9" * 4301,
}


def with_hostile(data: bytes | str) -> MemoryBackend:
    return MemoryBackend({**GOOD, HOSTILE: {"SKILL.md": data}})


async def only_the_hostile_skill_is_refused(catalog: SkillCatalog, code: str) -> str:
    """Refresh: the good skills load, the hostile one is refused with ``code``; its message."""
    report = await catalog.refresh()
    assert report.ok
    assert report.added == tuple(GOOD)
    [problem] = report.errors
    assert (problem.name, problem.location, problem.code) == (HOSTILE, HOSTILE_LOCATION, code)
    json.dumps(report.to_dict())  # everything reported can be printed
    return problem.message


@pytest.mark.parametrize("value", LONG_INTEGERS.values(), ids=LONG_INTEGERS.keys())
async def test_an_integer_too_long_to_print_refuses_its_skill_alone(value: str) -> None:
    key = "metadata" if value.startswith("\n") else "version"
    text = f"---\nname: {HOSTILE}\ndescription: d\n{key}: {value}\n---\nBody.\n"
    catalog = SkillCatalog(with_hostile(text))

    message = await only_the_hostile_skill_is_refused(catalog, codes.YAML_NUMBER)

    line = 5 if key == "metadata" else 4
    assert message == f"integer at line {line} is longer than 4,300 digits; refused"
    assert (await catalog.refresh()).ok


class WrongTypeBackend(CountingBackend):
    """A third-party backend with a bug: one skill's bytes come back as ``str``."""

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        results = list(await super().get_many(names))
        return [
            result._replace(data=result.data.decode())
            if isinstance(result, SkillDocument) and result.name == HOSTILE
            else result
            for result in results
        ]


async def test_a_skill_that_breaks_the_loader_is_refused_alone() -> None:
    catalog = SkillCatalog(WrongTypeBackend(with_hostile(skill_md(HOSTILE))))

    message = await only_the_hostile_skill_is_refused(catalog, codes.LOAD_FAILED)

    assert message.startswith("loading the skill failed unexpectedly (TypeError: ")


class ExplodingFetchBackend(CountingBackend):
    """A batch fetch that fails with a foreign exception once armed."""

    armed = False

    async def get_many(self, names: Sequence[str]) -> Sequence[FetchResult]:
        if self.armed:
            raise RuntimeError("connection pool exploded")
        return await super().get_many(names)


async def test_anything_unexpected_after_the_listing_keeps_the_last_good_catalog() -> None:
    memory = MemoryBackend(GOOD)
    backend = ExplodingFetchBackend(memory)
    catalog = SkillCatalog(backend)
    await catalog.refresh()
    before = catalog.snapshot
    memory.put("beta", {"SKILL.md": skill_md("beta", "Changed.")})
    backend.armed = True

    report = await catalog.refresh()

    assert not report.ok
    assert report.failure is not None
    assert report.failure.code == codes.REFRESH_FAILED
    assert report.failure.message == (
        "refresh failed (kept the last good catalog): connection pool exploded"
    )
    assert catalog.snapshot is before
    assert report.unchanged == tuple(GOOD)


# -- any one SKILL.md among good skills: refresh never raises --------------------------------

HOSTILE_FOLDERS = (HOSTILE, "zz-\ufb01le")  # the second normalises to "zz-file" under NFKC
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=30),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
names = st.one_of(st.sampled_from(["alpha", *HOSTILE_FOLDERS, "zz-file", "Bad Name", ""]), values)
frontmatters = st.fixed_dictionaries(
    {},
    optional={"name": names, "description": st.one_of(st.text(max_size=40), values)},
).flatmap(
    lambda fixed: st.dictionaries(st.text(max_size=10), values, max_size=3).map(
        lambda extra: {**extra, **fixed}
    )
)
yaml_documents = frontmatters.map(
    lambda mapping: "---\n" + yaml.safe_dump(mapping, allow_unicode=True) + "---\nBody.\n"
)
# Lines as people write them, YAML-valid or not: numbers of every size and base, colons.
raw_values = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["Use when: the user asks", "a: b: c", "[1, 2", "*alias", "&anchor x"]),
    st.integers(min_value=4290, max_value=4400).map(lambda size: "9" * size),
    st.integers(min_value=3580, max_value=3700).map(lambda size: "0x" + "f" * size),
    st.integers(min_value=1, max_value=2600).map(lambda parts: ":".join(["1"] * parts)),
)
raw_keys = st.sampled_from(["name", "description", "metadata", "version", "tags", "x"])
line_documents = st.lists(st.tuples(raw_keys, raw_values), max_size=5).map(
    lambda lines: "---\n" + "".join(f"{key}: {value}\n" for key, value in lines) + "---\nB\n"
)
text_documents = st.text(max_size=300).map(lambda text: f"---\n{text}\n---\nBody.\n")
byte_documents = st.binary(max_size=600) | st.binary(max_size=300).map(
    lambda data: b"---\nname: x\ndescription: " + data + b"\n---\n"
)
documents = st.one_of(yaml_documents, line_documents, text_documents, byte_documents)


async def check_catalog_survives(folder: str, data: bytes | str) -> None:
    catalog = SkillCatalog(MemoryBackend({**GOOD, folder: {"SKILL.md": data}}))
    location = f"memory://{folder}/SKILL.md"
    for _ in range(2):
        report = await catalog.refresh()
        assert report.ok, report.failure
        served = {meta.name for meta in catalog.list()}
        assert set(GOOD) <= served
        assert served - set(GOOD) or any(p.location == location for p in report.errors)
        for name in served:
            assert (await catalog.get(name)).files
        catalog.to_prompt()
        json.dumps(report.to_dict())


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.sampled_from(HOSTILE_FOLDERS), documents)
def test_any_one_skill_md_among_good_skills_never_breaks_a_refresh(
    folder: str, data: bytes | str
) -> None:
    asyncio.run(check_catalog_survives(folder, data))
