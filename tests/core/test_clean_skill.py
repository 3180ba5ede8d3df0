"""The one-pass reader for clean skills must agree with the full path, or decline."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends.errors import LimitExceededError
from skills_core.errors import SkillParseError
from skills_core.format.clean_skill import CleanSkill, read_clean_skill
from skills_core.format.format_limits import FormatLimits
from skills_core.format.parsing import parse_frontmatter, split_skill_md
from skills_core.format.validation import analyze
from tests.support.examples import examples

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


def assert_agrees(raw: bytes) -> CleanSkill | None:
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
    assert assert_agrees(raw) is not None


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
    assert assert_agrees(raw) is None


_VALUE = st.sampled_from(
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
_KEY = st.sampled_from(
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
_LINE = st.one_of(
    st.tuples(_KEY, _VALUE).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    _KEY.map(lambda key: f"{key}:"),
    st.tuples(_KEY, _VALUE).map(lambda kv: f"  {kv[0]}: {kv[1]}"),
    _VALUE.map(lambda value: f"  - {value}"),
    st.sampled_from(["", "# c", "---", "--- ", "description: >-", "  folded text"]),
)
_SEPARATOR = st.sampled_from(["\n", "\n", "\n", "\r\n"])
_BODY = st.sampled_from(["body\n", "", "\n \n", "# T\n\nmore ---\n", "é\n", "\n---\nx\n"])


_HEAD = st.sampled_from(
    [["name: pdf-tools", "description: Fill forms"]] * 3 + [["name: pdf-tools"], []]
)


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    opening = draw(st.sampled_from(["---\n", "---\n", "---\r\n", "---  \n", "\ufeff---\n", ""]))
    lines = [*draw(_HEAD), *draw(st.lists(_LINE, max_size=8))]
    closing = draw(st.sampled_from(["---\n", "---\n", "---", "--- \n", "---\r\n", "...\n"]))
    text = opening + draw(_SEPARATOR).join(lines) + "\n" + closing + draw(_BODY)
    return text.encode()


@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents())
def test_never_disagrees_with_the_full_path(raw: bytes) -> None:
    assert_agrees(raw)
