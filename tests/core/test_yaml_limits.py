"""YAML limits judged before a document is built, with one verdict whatever PyYAML build runs.

PyYAML 6.0.4's libyaml stops deep flow nesting itself ("exceeded maximum nesting depth"),
6.0.3's does not, and the pure-Python loader has no limit at all: skillfs's own verdicts
(``YAML_DEPTH``, ``YAML_ALIASES``, ``YAML_NUMBER``) must not depend on which one is installed.
``.ci/run`` also runs this file under both PyYAML releases.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from skills_core import FormatLimits, parse_skill_md
from skills_core import _codes as codes
from skills_core._errors import YamlLimitError
from skills_core._format import yaml_loader
from skills_core._format.fast_path import load_simple_mapping
from tests.support.examples import examples

LOCATION = "skills/pdf/SKILL.md"
LOADERS = {"python": yaml_loader.PythonLoader, "core-python": yaml_loader.CorePythonLoader}
if yaml.__with_libyaml__:  # YAML 1.2 core loaders are held to the same limits
    LOADERS.update(libyaml=yaml_loader.LibyamlLoader, core_libyaml=yaml_loader.CoreLibyamlLoader)

BILLION_LAUGHS = """name: lol
description: laughs
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]"""

DEPTH = ("YAML nests deeper than 64 levels; refused", codes.YAML_DEPTH)
HOSTILE = {
    # 30,000 brackets crash libyaml's composer; PyYAML 6.0.4's scanner stops them at 1,000.
    "flow-sequences": ("x: " + "[" * 30000 + "]" * 30000, DEPTH),
    "flow-mappings": ("x: " + "{a: " * 12000 + "b" + "}" * 12000, DEPTH),
    "block-sequences": ("x:\n" + "- " * 30000 + "x", DEPTH),
    "block-mappings": (
        "x:\n" + "".join(" " * level + f"k{level}:\n" for level in range(1, 80)) + " " * 80 + "v",
        DEPTH,
    ),
    "billion-laughs": (
        BILLION_LAUGHS,
        ("frontmatter uses more than 16 YAML aliases; refused unexpanded", codes.YAML_ALIASES),
    ),
    "long-integer": (
        "name: pdf\nversion: " + "9" * 5000,
        ("integer at line 3 is longer than 4,300 digits; refused", codes.YAML_NUMBER),
    ),
}


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("case", HOSTILE)
def test_every_loader_gives_the_same_verdict(
    case: str, loader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, (message, code) = HOSTILE[case]
    monkeypatch.setattr(yaml_loader, "LOADER", LOADERS[loader])
    assert load_simple_mapping(text) is None  # the fast path declines, so the limits decide
    with pytest.raises(YamlLimitError) as caught:
        parse_skill_md(f"---\n{text}\n---\nbody\n", location=LOCATION)
    assert (caught.value.code, caught.value.message) == (code, message)
    assert str(caught.value).startswith(LOCATION)


@pytest.mark.parametrize("loader", LOADERS)
def test_documents_within_the_limits_load_with_every_loader(
    loader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(yaml_loader, "LOADER", LOADERS[loader])
    text = (
        "---\nname: pdf\ndescription: &d shared\nmetadata:\n  summary: *d\n"
        "hooks: " + "[" * 60 + "]" * 60 + "\n---\nbody\n"
    )
    frontmatter = parse_skill_md(text, location=LOCATION).frontmatter
    assert frontmatter["metadata"] == {"summary": "shared"}
    assert frontmatter["hooks"] is not None


def test_alias_limit_is_configurable() -> None:
    text = "---\nname: pdf\ndescription: &d shared\nmetadata:\n  summary: *d\n---\n"
    with pytest.raises(YamlLimitError) as caught:
        parse_skill_md(text, location=LOCATION, limits=FormatLimits(max_yaml_aliases=0))
    assert caught.value.code == codes.YAML_ALIASES


def test_asterisks_in_text_are_not_aliases() -> None:
    words = " ".join(f"**bold{n}** a*b" for n in range(40))
    text = f"---\nname: pdf\ndescription: '{words}'\nmetadata:\n  note: x *y z\n---\nbody\n"
    assert parse_skill_md(text, location=LOCATION).frontmatter["description"] == words


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(item) for item in value), default=0)
    return 0


_NESTED = st.recursive(
    st.sampled_from(["a", "b-c", "?", "x y", ""]),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(st.sampled_from(["k", "a-b", "q"]), inner, min_size=1, max_size=3),
    ),
    max_leaves=40,
)


@settings(max_examples=examples(150), deadline=None)
@given(_NESTED, st.sampled_from([None, True, False]), st.sampled_from([1, 2, 4]))
def test_the_cheap_depth_bound_is_never_below_the_real_depth(
    value: Any, flow: bool | None, indent: int
) -> None:
    text = yaml.safe_dump({"x": value}, default_flow_style=flow, indent=max(indent, 2))
    assert yaml_loader._depth_bound(text) >= _depth({"x": value})
