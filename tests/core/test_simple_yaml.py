"""The fast path must agree with the general one, or decline.

Its YAML reader returns exactly what PyYAML returns; its one-pass reader of clean skills
exactly what split + parse + validate make of them.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends._errors import LimitExceededError
from skills_core._errors import SkillParseError
from skills_core._format.fast_path import CleanSkill, load_simple_mapping, read_clean_skill
from skills_core._format.models import FormatLimits
from skills_core._format.parsing import parse_frontmatter, split_skill_md
from skills_core._format.validation import analyze
from skills_core._format.yaml_loader import CORE_LOADER, CorePythonLoader
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


LIMITS = FormatLimits(max_frontmatter_bytes=2048)
MAX_SKILL_MD_BYTES = 8192
FOLDER = "pdf-tools"


def full_path(raw: bytes) -> CleanSkill | None:
    """What split + parse + validate make of ``raw``, when they find nothing to report."""
    try:
        split = split_skill_md(
            raw, location="x", limits=LIMITS, max_skill_md_bytes=MAX_SKILL_MD_BYTES
        )
        frontmatter = parse_frontmatter(split.frontmatter, location="x", limits=LIMITS)
    except (SkillParseError, LimitExceededError):
        return None
    metadata, report = analyze(frontmatter, folder_name=FOLDER)
    if metadata is None or report.errors or report.warnings or split.body_is_blank:
        return None
    return CleanSkill(metadata, split.body_start)


def assert_clean_agrees(raw: bytes) -> CleanSkill | None:
    clean = read_clean_skill(
        raw, folder_name=FOLDER, limits=LIMITS, max_skill_md_bytes=MAX_SKILL_MD_BYTES
    )
    if clean is not None:
        expected = full_path(raw)
        assert clean == expected, raw
        assert [type(value) for value in clean.metadata] == [
            type(value) for value in expected.metadata
        ]
    return clean


@pytest.mark.parametrize(
    "frontmatter",
    [
        "name: pdf-tools\ndescription: Fill PDF forms. Use when the user mentions PDFs.",
        "name: pdf-tools\ndescription: d\nlicense: MIT\ncompatibility: python3\n"
        "allowed-tools: Bash(python:*) Read\nmetadata:\n  author: me\n  version: '1.0'",
        "name: pdf-tools\ndescription: >-\n  Folded\n  over lines\ntags:\n  - pdf\n  - forms",
        "name: pdf-tools\ndescription: Ünïcödé — “quoted” 漢字 🎉\nmodel: gemini-2.5-flash",
        "name: pdf-tools\ndescription: d\ncontext: fork\nagent: helper\nargument-hint: '[file]'",
        "name: pdf-tools\ndescription: d\npaths: src/*.py, docs/*.md\nshell: bash",
        "# a comment\nname: pdf-tools\n\ndescription: C# and F# too",
    ],
)
def test_clean_skills_take_the_one_pass_path(frontmatter: str) -> None:
    raw = f"---\n{frontmatter}\n---\n# Body\n\nSteps: 1 --- 2, é.\n".encode()
    assert assert_clean_agrees(raw) is not None


@pytest.mark.parametrize(
    "raw",
    [
        b"---\nname: pdf-tools\ndescription: d\n---\n\n  \n",  # blank body: advice to give
        b"---\nname: pdf-tools\ndescription: d\nextra: x\n---\nbody\n",  # unknown field
        b"---\nname: other\ndescription: d\n---\nbody\n",  # name unlike the folder
        b"---\nname: Pdf-Tools\ndescription: d\n---\nbody\n",  # not kebab-case
        b"---\nname: pdf-tools\ndescription: " + b"x" * 1025 + b"\n---\nbody\n",
        b"---\nname: pdf-tools\ndescription: d\nallowed-tools: [Read]\n---\nbody\n",
        b"---\nname: pdf-tools\ndescription: d\nhooks:\n  pre: lint\n---\nbody\n",  # no event
        b"---\nname: pdf-tools\ndescription: d\npaths: '**'\n---\nbody\n",  # advice to give
        b"---\nname: pdf-tools\ndescription: d\npaths: src/[ab\n---\nbody\n",  # broken glob
        b"---\nname: pdf-tools\ndescription: d\nuser-invocable: yes\n---\nbody\n",
        b"---\nname: pdf-tools\ndescription: d\ncontext: spawn\n---\nbody\n",
        b"---\nname: pdf-tools\ndescription: d\nname: pdf-tools\n---\nbody\n",
        b"---\r\nname: pdf-tools\r\ndescription: d\r\n---\r\nbody\r\n",  # CRLF: full path
        b"\xef\xbb\xbf---\nname: pdf-tools\ndescription: d\n---\nbody\n",  # BOM: full path
        b"---  \nname: pdf-tools\ndescription: d\n---\nbody\n",
        b"---\nname: pdf-tools\ndescription: d\n---  \nbody\n",
        b"---\nname: pdf-tools\ndescription: d\n---",
        b"---\nname: pdf-tools\ndescription: caf\xe9\n---\nbody\n",  # Latin-1, not UTF-8
        b"---\nname: pdf-tools\ndescription: d\n---\nbody \xff\n",
        b"---\nname: pdf-tools\ndescription: d\ncompatibility: " + b"x" * 501 + b"\n---\nbody\n",
        b"---\nname: pdf-tools\ndescription: d\n---\n" + b"x" * 8192,  # over the size limit
        b"---\nname: pdf-tools\ndescription: d\nlicense: " + b"x" * 2020 + b"\n---\nbody\n",
        b"name: pdf-tools\ndescription: d\n",
    ],
)
def test_anything_worth_a_report_takes_the_full_path(raw: bytes) -> None:
    assert assert_clean_agrees(raw) is None


_CLEAN_VALUE = st.sampled_from(
    [
        "d",
        "Use for PDFs",
        "pdf-tools",
        "other",
        "yes",
        "1.0",
        "'quoted'",
        '"dq"',
        "[Read]",
        "fork",
        "bash",
        "a, b",
        "x: y",
        "é",
        "",
        "  ",
        "x" * 600,
    ]
)
_CLEAN_KEY = st.sampled_from(
    [
        "name",
        "description",
        "license",
        "compatibility",
        "allowed-tools",
        "metadata",
        "tags",
        "hooks",
        "context",
        "shell",
        "user-invocable",
        "unknown",
    ]
)
_CLEAN_LINE = st.one_of(
    st.tuples(_CLEAN_KEY, _CLEAN_VALUE).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    _CLEAN_KEY.map(lambda key: f"{key}:"),
    st.tuples(_CLEAN_KEY, _CLEAN_VALUE).map(lambda kv: f"  {kv[0]}: {kv[1]}"),
    _CLEAN_VALUE.map(lambda value: f"  - {value}"),
    st.sampled_from(["", "# c", "---", "--- ", "description: >-", "  folded text"]),
)
_SEPARATOR = st.sampled_from(["\n", "\n", "\n", "\r\n"])
_BODY = st.sampled_from(["body\n", "", "\n \n", "# T\n\nmore ---\n", "é\n", "\n---\nx\n"])


_HEAD = st.sampled_from(
    [["name: pdf-tools", "description: Fill forms"]] * 3 + [["name: pdf-tools"], []]
)


_FRONTMATTER = st.one_of(
    st.lists(_LINE, min_size=1, max_size=8).map("\n".join),
    st.tuples(
        st.lists(
            st.one_of(_structured_entry(), st.sampled_from(["", "# c"])), min_size=1, max_size=6
        ),
        st.sampled_from(["", "\n"]),
    ).map(lambda parts: "\n".join(parts[0]) + parts[1]),
    st.tuples(_HEAD, st.lists(_CLEAN_LINE, max_size=8), _SEPARATOR).map(
        lambda parts: parts[2].join([*parts[0], *parts[1]])
    ),
)


@st.composite
def _documents(draw: st.DrawFn) -> tuple[str, bytes]:
    frontmatter = draw(_FRONTMATTER)
    opening = draw(st.sampled_from(["---\n", "---\n", "---\r\n", "---  \n", "\ufeff---\n", ""]))
    closing = draw(st.sampled_from(["---\n", "---\n", "---", "--- \n", "---\r\n", "...\n"]))
    return frontmatter, (opening + frontmatter + "\n" + closing + draw(_BODY)).encode()


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_never_disagrees_with_pyyaml_and_the_full_verdict(document: tuple[str, bytes]) -> None:
    frontmatter, raw = document
    assert_agrees(frontmatter)
    assert_clean_agrees(raw)
