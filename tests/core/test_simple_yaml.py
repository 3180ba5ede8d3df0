"""The fast frontmatter reader must return exactly what PyYAML returns, or decline."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skills_core.format.simple_yaml import load_simple_mapping
from skills_core.format.yaml_loader import CORE_LOADER, CorePythonLoader
from tests.support.examples import examples

LOADERS = [
    yaml.SafeLoader,
    getattr(yaml, "CSafeLoader", yaml.SafeLoader),
    CorePythonLoader,  # what the fast reader returns, YAML 1.2 readers return too
    CORE_LOADER,
]


def pyyaml(text: str, loader: Any) -> Any:
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError:
        return "<error>"


def assert_agrees(text: str) -> dict[str, Any] | None:
    fast = load_simple_mapping(text)
    if fast is not None:
        for loader in LOADERS:
            assert fast == pyyaml(text, loader), (text, loader)
            assert _types(fast) == _types(pyyaml(text, loader))
    return fast


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    return type(value)


TYPICAL = """name: pdf-processing
description: Extract text and tables from PDF files, fill forms. Use when the user mentions PDFs.
license: Apache-2.0
compatibility: Requires python3 and poppler-utils
allowed-tools: Bash(python:*) Read Write
metadata:
  author: example-org
  version: "1.0"
  category: 'documents'
"""


def test_typical_frontmatter_takes_the_fast_path() -> None:
    result = assert_agrees(TYPICAL)
    assert result is not None
    assert result["metadata"] == {
        "author": "example-org",
        "version": "1.0",
        "category": "documents",
    }


@pytest.mark.parametrize(
    "text",
    [
        "name: a\ndescription: use for a --- b\n",
        "name: a\n# a comment\ndescription: C# and F# projects\n",
        'name: a\ndescription: "quoted: with colon"\n',
        "name: a\ndescription: 'it''s quoted'\n",
        "name: a\ndescription: ''\n",
        "name: a\ndescription: Use [brackets] and {braces}, commas\n",
        'name: a\ndescription: Don\'t "mind" quotes inside\n',
        "name: a\nlicense:\ndescription: d\n",
        "name: a\nmetadata:\n    k: v\n\n    k2: v2\n  # c\n    k3: v3\ndescription: d\n",
        "name: a\ndescription: trailing spaces   \n",
        "name: a\ndescription: ünïcödé and 漢字 and emoji 🎉\n",
        "name: a\ndescription: ends with colon in quotes ':'\n",
        "name: a\ndescription: a\u00a0nbsp\n",
        "name: a\ndescription: |\n  block\n",
        "name: a\ndescription: |\n  block",
        "name: a\ndescription: >\n  folded\n  twice\nlicense: MIT\n",
        "name: a\ndescription: >-\n    folded\n    deeper  \n\n\nlicense: MIT\n",
        "name: a\ndescription: |-\n  # not a comment\n  x: y\n",
        "name: a\ntags:\n  - x\n  - 'y z'\n\n  # comment\n  - \"q\"\nlicense: MIT",
        "name: a\nmetadata:\n\n  k: v\n",
        "name: a\nmetadata:\n  k: v\n\n  k2: v2\n",
        "name: a\nmetadata:\n  k: v\n   \n  k2: v2\n\ndescription: d\n",
        "name: a\nmetadata:\n  k: v\n \n",
        "k" * 1024 + ": v\n",
        "m:\n  " + "k" * 1024 + ": v\n",
    ],
)
def test_simple_shapes_are_read_exactly(text: str) -> None:
    assert assert_agrees(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "name: a\ndescription: yes\n",
        "name: a\ndescription: 1.0\n",
        "name: a\ndescription: 2024-01-01\n",
        "name: a\ndescription: ~\n",
        "name: a\ndescription: null\n",
        "name: a\ndescription: 0x1F\n",
        "name: a\ndescription: .inf\n",
        "name: a\ndescription: -1\n",
        "name: a\ndescription: =\n",
        "name: a\ndescription: 1e3\n",  # a string to YAML 1.1, a number to 1.2
        "name: a\ndescription: 0o17\n",
        "name: a\ndescription: +.5\n",
        "name: a\ndescription: <<\n",
        "yes: a\n",
        "on: a\n",
        "name: a\ndescription: |+\n  keep\n",
        "name: a\ndescription: |2\n  indent\n",
        "name: a\ndescription: |\n  line\n\n  after blank\n",
        "name: a\ndescription: >\n  line\n    more indented\n",
        "name: a\ndescription: >\nlicense: x\n",
        "name: a\ndescription: | # comment\n  x\n",
        "name: a\ntags:\n  - x\n  -\n",
        "name: a\ntags:\n  - x\n  - k: v\n",
        "name: a\ntags:\n- x\n",
        "name: a\ntags:\n  - x\n   - y\n",
        "name: a\ntags:\n  - yes\n",
        "name: a\nmetadata:\n  k: v\n # c\n x: y\n",
        "name: a\ndescription: multi\n  line plain\n",
        'name: a\ndescription: "escaped \\" quote"\n',
        'name: a\ndescription: "unterminated\n',
        "name: a\ndescription: 'a' b\n",
        "name: a\ndescription: value # comment\n",
        "name: a\ndescription: key: value\n",
        "name: a\ndescription: ends:\n",
        "name: a\ntags: [x, y]\n",
        "name: &n a\n",
        "name: *n\n",
        "name: !!str a\n",
        "name: a\tb\n",
        "name: a\rb\n",
        "name: a\u2028b\n",
        "name: a\x85b\n",
        "name: a\ufeffb\n",
        "name: a\x7fb\n",
        "name:a\n",
        "name : a\n",
        "  name: a\n",
        "name: a\nmetadata:\n  k: v\n    deeper: x\n",
        "name: a\nmetadata:\n  k:\n",
        "# only a comment\n",
        "",
        "...\n",
        "%YAML 1.1\n",
        "a.b: c\n",
        "name: a\nname: b\n",
        "name: a\nmetadata:\n  k: v\n  k: w\n",
        "name: `tick`\n",
        "name: @at\n",
        "k" * 1025 + ": v\n",
        "m:\n  " + "k" * 1025 + ": v\n",
    ],
)
def test_everything_else_is_declined(text: str) -> None:
    assert assert_agrees(text) is None


_ATOMS = st.sampled_from(
    [
        "a",
        "Z",
        "0",
        "1.5",
        "yes",
        "no",
        "on",
        "off",
        "true",
        "null",
        "~",
        "-",
        "--",
        "---",
        ":",
        ": ",
        "#",
        " #",
        "'",
        "''",
        '"',
        "\\",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&",
        "*",
        "!",
        "|",
        ">",
        "%",
        "@",
        "`",
        "?",
        " ",
        "  ",
        "\t",
        "é",
        "漢",
        "🎉",
        "\u00a0",
        "2024-01-01",
        "0x1F",
        ".inf",
        "=",
        "<<",
        "key",
        "-x",
        "?x",
        ":x",
    ]
)
_SCALAR = st.lists(_ATOMS, min_size=0, max_size=6).map("".join)
_KEY = st.sampled_from(
    ["name", "description", "license", "metadata", "x", "yes", "a-b", "a_b", "1", "k" * 1025]
)
_LINE = st.one_of(
    st.tuples(_KEY, _SCALAR).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(_KEY, _SCALAR).map(lambda kv: f"{kv[0]}:{kv[1]}"),
    st.tuples(st.sampled_from([" ", "  ", "    "]), _KEY, _SCALAR).map(
        lambda t: f"{t[0]}{t[1]}: {t[2]}"
    ),
    _KEY.map(lambda key: f"{key}:"),
    st.tuples(_KEY, st.sampled_from(["|", "|-", ">", ">-", "|+", ">2"])).map(
        lambda kv: f"{kv[0]}: {kv[1]}"
    ),
    st.tuples(st.sampled_from([" ", "  ", "    "]), _SCALAR).map(lambda t: f"{t[0]}- {t[1]}"),
    st.tuples(st.sampled_from([" ", "  ", "    "]), _SCALAR).map(lambda t: f"{t[0]}{t[1]}"),
    _SCALAR.map(lambda text: f'description: "{text}"'),
    _SCALAR.map(lambda text: f"description: '{text}'"),
    st.sampled_from(["", "# comment", "  ", "- item", "..."]),
)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINE, min_size=1, max_size=8).map("\n".join))
def test_never_disagrees_with_pyyaml(text: str) -> None:
    assert_agrees(text)


_WORD = st.sampled_from(["alpha", "Beta", "pdf", "x", "forms", "a-b", "C#", "100%", "é", "🎉"])
_TRICKY = st.sampled_from(["yes", "1.0", "~", "-", ": ", " #", "'", '"', "*", "&a", "!t", "\\", ""])
_TEXT = st.lists(st.one_of(_WORD, _WORD, _WORD, _TRICKY), min_size=1, max_size=5).map(" ".join)
_INDENT = st.sampled_from(["  ", "  ", "    ", " ", "   "])


@st.composite
def _structured_entry(draw: st.DrawFn) -> str:
    key = draw(st.sampled_from(["name", "description", "license", "metadata", "tags", "k"]))
    kind = draw(st.sampled_from(["plain", "double", "single", "block", "map", "list", "empty"]))
    if kind == "plain":
        return f"{key}: {draw(_TEXT)}"
    if kind == "double":
        return f'{key}: "{draw(_TEXT)}"'
    if kind == "single":
        return f"{key}: '{draw(_TEXT)}'"
    if kind == "empty":
        return f"{key}:"
    indent = draw(_INDENT)
    lines = draw(st.lists(_TEXT, min_size=1, max_size=4))
    jitter = draw(st.sampled_from(["", "", "", " ", "\n"]))  # sometimes break the block's shape
    if kind == "block":
        style = draw(st.sampled_from(["|", "|-", ">", ">-"]))
        body = [f"{indent}{line}" for line in lines]
    elif kind == "list":
        style = ""
        body = [f"{indent}- {line}" for line in lines]
    else:
        style = ""
        body = [f"{indent}{draw(_WORD)}k{i}: {line}" for i, line in enumerate(lines)]
    body[-1] = jitter + body[-1]
    return f"{key}: {style}".rstrip(" ") + "\n" + "\n".join(body)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.one_of(_structured_entry(), st.sampled_from(["", "# c"])), min_size=1, max_size=6),
    st.booleans(),
)
def test_structured_documents_never_disagree_with_pyyaml(entries: list[str], newline: bool) -> None:
    assert_agrees("\n".join(entries) + ("\n" if newline else ""))
