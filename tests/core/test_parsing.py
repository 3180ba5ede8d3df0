"""SKILL.md splitting, decoding and the limits that protect the parser."""

from __future__ import annotations

import pytest

from backends._errors import LimitExceededError
from skills_core import FormatLimits, parse_skill_md
from skills_core import _codes as codes
from skills_core._errors import SkillParseError

LOCATION = "skills/pdf/SKILL.md"


def parse(text: str | bytes, **kwargs: object) -> object:
    return parse_skill_md(text, location=LOCATION, **kwargs)  # type: ignore[arg-type]


def test_splits_frontmatter_and_body() -> None:
    parsed = parse_skill_md(
        "---\nname: pdf\ndescription: Fill forms.\n---\n\n# PDF\n\nSteps.\n", location=LOCATION
    )
    assert parsed.frontmatter == {"name": "pdf", "description": "Fill forms."}
    assert parsed.body == "# PDF\n\nSteps."
    assert parsed.location == LOCATION


def test_triple_dash_inside_a_value_survives() -> None:
    text = "---\nname: pdf\ndescription: use for a --- b\n---\nbody with --- too\n"
    parsed = parse_skill_md(text, location=LOCATION)
    assert parsed.frontmatter["description"] == "use for a --- b"
    assert parsed.body == "body with --- too"


def test_fence_lines_must_be_exact_but_may_have_trailing_blanks() -> None:
    text = "---  \nname: pdf\ndescription: d\nstill: frontmatter\n--- \t\nbody\n----\n"
    parsed = parse_skill_md(text, location=LOCATION)
    assert parsed.frontmatter == {"name": "pdf", "description": "d", "still": "frontmatter"}
    assert parsed.body == "body\n----"


def test_bom_and_crlf_are_tolerated() -> None:
    data = "\ufeff---\r\nname: pdf\r\ndescription: d\r\n---\r\nline one\r\nline two\r\n"
    parsed = parse_skill_md(data.encode(), location=LOCATION)
    assert parsed.frontmatter == {"name": "pdf", "description": "d"}
    assert parsed.body == "line one\nline two"


def test_empty_body_is_allowed() -> None:
    parsed = parse_skill_md("---\nname: pdf\ndescription: d\n---", location=LOCATION)
    assert parsed.body == ""


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# no frontmatter\n", codes.NO_FRONTMATTER),
        ("", codes.NO_FRONTMATTER),
        ("--- \nname: pdf\n", codes.UNCLOSED_FRONTMATTER),
        ("---\nname: pdf\n----\n", codes.UNCLOSED_FRONTMATTER),
        ("---\nname: [unclosed\n---\n", codes.INVALID_YAML),
        ("---\n- a list\n---\n", codes.NOT_A_MAPPING),
        ("---\n---\nbody\n", codes.NOT_A_MAPPING),
        ("---\njust a string\n---\n", codes.NOT_A_MAPPING),
    ],
)
def test_broken_frontmatter_is_a_parse_error_with_location(text: str, code: str) -> None:
    with pytest.raises(SkillParseError) as caught:
        parse_skill_md(text, location=LOCATION)
    assert caught.value.code == code
    assert caught.value.location == LOCATION
    assert str(caught.value).startswith(f"{LOCATION}: ")


def test_invalid_yaml_names_the_line_in_the_file() -> None:
    text = "---\nname: pdf\ndescription: d\nbad: [x\n---\n"
    with pytest.raises(SkillParseError, match="line 4: while parsing a flow sequence"):
        parse_skill_md(text, location=LOCATION)


def test_non_utf8_is_refused_with_the_offset() -> None:
    with pytest.raises(SkillParseError, match="offset 20") as caught:
        parse_skill_md(b"---\nname: pdf\ndesc: \xff\n---\n", location=LOCATION)
    assert caught.value.code == codes.NOT_UTF8


def test_oversize_skill_md_is_refused_before_parsing() -> None:
    data = b"---\nname: pdf\ndescription: d\n---\n" + b"x" * 100
    with pytest.raises(LimitExceededError, match="over the 100-byte limit"):
        parse_skill_md(data, location=LOCATION, max_skill_md_bytes=100)


def test_oversize_frontmatter_is_refused() -> None:
    limits = FormatLimits(max_frontmatter_bytes=64)
    data = "---\nname: pdf\ndescription: " + "é" * 40 + "\n---\n"
    with pytest.raises(LimitExceededError, match="frontmatter is"):
        parse_skill_md(data, location=LOCATION, limits=limits)


def test_nesting_within_the_limit_loads() -> None:
    text = "---\nname: pdf\nhooks: " + "[" * 60 + "]" * 60 + "\n---\n"
    assert parse_skill_md(text, location=LOCATION).frontmatter["hooks"] is not None


@pytest.mark.parametrize(
    "frontmatter",
    [
        "name: pdf\ndescription: d\nname: other",
        "name: pdf\ndescription: d\nmetadata:\n  k: [1]\n  k: 2",
        "name: pdf\ndescription: d\nhooks: {a: 1, a: 2}",
    ],
)
def test_duplicate_keys_are_refused(frontmatter: str) -> None:
    with pytest.raises(SkillParseError, match="duplicate key") as caught:
        parse_skill_md(f"---\n{frontmatter}\n---\n", location=LOCATION)
    assert caught.value.code == codes.INVALID_YAML


def test_merge_keys_still_work() -> None:
    text = "---\nname: pdf\ndescription: d\nbase: &b {x: 1}\nhooks:\n  <<: *b\n  y: 2\n---\n"
    assert parse_skill_md(text, location=LOCATION).frontmatter["hooks"] == {"x": 1, "y": 2}


def test_non_string_scalars_are_kept_as_yaml_types() -> None:
    text = "---\nname: pdf\ndescription: d\ncompatibility: yes\nversion: 1.0\n---\n"
    parsed = parse_skill_md(text, location=LOCATION)
    assert parsed.frontmatter["compatibility"] is True
    assert parsed.frontmatter["version"] == 1.0
