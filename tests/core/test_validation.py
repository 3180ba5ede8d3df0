"""The agentskills.io rules, extension fields, and every problem reported at once."""

from __future__ import annotations

from typing import Any

import pytest

from skills_core import _codes as codes
from skills_core import validate_skill
from skills_core._format.validation import analyze

VALID: dict[str, Any] = {"name": "pdf-forms", "description": "Fill PDF forms."}


def check(**fields: Any) -> list[str]:
    frontmatter = {**VALID, **fields}
    return [issue.code for issue in validate_skill(frontmatter, folder_name="pdf-forms").errors]


def test_a_minimal_skill_is_valid() -> None:
    report = validate_skill(VALID, folder_name="pdf-forms", body="Steps.")
    assert report.valid
    assert report.errors == ()
    assert report.warnings == ()


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("PDF", codes.NAME_INVALID),
        ("-pdf", codes.NAME_INVALID),
        ("pdf-", codes.NAME_INVALID),
        ("pdf--forms", codes.NAME_INVALID),
        ("pdf_forms", codes.NAME_INVALID),
        ("pdf forms", codes.NAME_INVALID),
        ("a" * 65, codes.NAME_INVALID),
        ("", codes.NAME_INVALID),
        (None, codes.NAME_MISSING),
        (123, codes.NAME_INVALID),
        (True, codes.NAME_INVALID),
    ],
)
def test_bad_names(name: Any, code: str) -> None:
    report = validate_skill({**VALID, "name": name})
    assert code in [issue.code for issue in report.errors]


def test_name_must_equal_the_folder_after_nfkc() -> None:
    assert check(name="other") == [codes.NAME_MISMATCH]
    # Fullwidth letters normalise to ASCII under NFKC, on both sides.
    assert validate_skill({**VALID, "name": "\uff50\uff44\uff46"}, folder_name="pdf").valid
    assert validate_skill({**VALID, "name": "café"}, folder_name="café").valid


def test_description_rules() -> None:
    assert check(description="") == [codes.DESCRIPTION_MISSING]
    assert check(description="   ") == [codes.DESCRIPTION_MISSING]
    assert check(description=None) == [codes.DESCRIPTION_MISSING]
    assert check(description=42) == [codes.DESCRIPTION_INVALID]
    assert check(description="d" * 1024) == []
    assert check(description="d" * 1025) == [codes.TOO_LONG]


def test_missing_description_key() -> None:
    report = validate_skill({"name": "pdf-forms"}, folder_name="pdf-forms")
    assert [issue.code for issue in report.errors] == [codes.DESCRIPTION_MISSING]


def test_compatibility_length_and_type() -> None:
    assert check(compatibility="c" * 500) == []
    assert check(compatibility="c" * 501) == [codes.TOO_LONG]
    assert check(compatibility=True) == [codes.WRONG_TYPE]


def test_wrong_type_message_is_clear() -> None:
    report = validate_skill({**VALID, "compatibility": True})
    assert report.errors[0].message == "'compatibility' must be a string, not boolean"
    assert report.errors[0].field == "compatibility"


def test_metadata_must_map_strings_to_strings() -> None:
    assert check(metadata={"author": "me"}) == []
    assert check(metadata={"version": 1.0}) == [codes.INVALID_VALUE]
    assert check(metadata="author: me") == [codes.WRONG_TYPE]


def test_allowed_tools_is_a_space_delimited_string() -> None:
    assert check(**{"allowed-tools": "Bash(git:*) Read"}) == []
    assert check(**{"allowed-tools": ["Read", "Write"]}) == [codes.WRONG_TYPE]


def test_unknown_fields_are_errors() -> None:
    assert check(version="1.0", owner="me") == [codes.UNKNOWN_FIELD, codes.UNKNOWN_FIELD]


@pytest.mark.parametrize(
    "fields",
    [
        {"context": "fork"},
        {"context": "fork_with_context", "agent": "researcher", "model": "gemini-2.5-pro"},
        {"tags": ["pdf", "forms"]},
        {"tags": "pdf, forms"},
        {"paths": ["src/**/*.py"]},
        {"shell": "bash"},
        {
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "x"}]}]
            }
        },
        {"argument-hint": "[file]"},
        {"user-invocable": False, "disable-model-invocation": True},
    ],
)
def test_extension_fields_are_known(fields: dict[str, Any]) -> None:
    assert check(**fields) == []


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"context": "inline"}, codes.INVALID_VALUE),
        ({"context": True}, codes.WRONG_TYPE),
        ({"tags": [1, 2]}, codes.WRONG_TYPE),
        ({"shell": "zsh"}, codes.INVALID_VALUE),
        ({"hooks": "none"}, codes.WRONG_TYPE),
        ({"user-invocable": "yes"}, codes.WRONG_TYPE),
        ({"agent": ["a"]}, codes.WRONG_TYPE),
    ],
)
def test_extension_fields_are_type_checked(fields: dict[str, Any], code: str) -> None:
    assert check(**fields) == [code]


def test_every_problem_is_reported_at_once() -> None:
    frontmatter = {
        "name": "Bad--Name",
        "description": 5,
        "compatibility": "c" * 600,
        "metadata": [],
        "extra": 1,
    }
    found = [issue.code for issue in validate_skill(frontmatter, folder_name="x").errors]
    assert found.count(codes.NAME_INVALID) == 2
    assert codes.NAME_MISMATCH in found
    assert codes.DESCRIPTION_INVALID in found
    assert codes.TOO_LONG in found
    assert codes.WRONG_TYPE in found
    assert codes.UNKNOWN_FIELD in found


def test_body_advice_is_a_warning() -> None:
    empty = validate_skill(VALID, folder_name="pdf-forms", body="")
    assert empty.valid
    assert [issue.code for issue in empty.warnings] == [codes.EMPTY_BODY]
    long = validate_skill(VALID, folder_name="pdf-forms", body="line\n" * 600)
    assert [issue.code for issue in long.warnings] == [codes.LONG_BODY]


def test_analysis_builds_typed_metadata() -> None:
    analysis = analyze(
        {
            **VALID,
            "allowed-tools": "Read  Write",
            "tags": "a, b",
            "metadata": {"author": "me"},
            "user-invocable": False,
            "owner": "team",
        },
        folder_name="pdf-forms",
    )
    meta = analysis.metadata
    assert meta is not None
    assert meta.allowed_tools == ("Read", "Write")
    assert meta.tags == ("a", "b")
    assert meta.metadata == {"author": "me"}
    assert meta.user_invocable is False
    assert meta.extra == {"owner": "team"}


def test_wrong_typed_values_are_kept_in_extra_and_faithful_repairs_applied() -> None:
    analysis = analyze(
        {
            **VALID,
            "compatibility": True,
            "metadata": {"version": 1.5},
            "allowed-tools": ["Read", "Write"],
        }
    )
    meta = analysis.metadata
    assert meta is not None
    assert meta.compatibility is None
    assert meta.extra == {"compatibility": True}
    assert meta.metadata == {"version": "1.5"}
    assert meta.allowed_tools == ("Read", "Write")


def test_no_description_or_no_usable_name_builds_no_metadata() -> None:
    assert analyze({"name": "pdf"}).metadata is None
    assert analyze({**VALID, "name": "a/b"}).metadata is None
    assert analyze({**VALID, "name": 7}).metadata is None
    assert analyze({"description": "d"}).metadata is None  # no name and no folder to fall back on


def test_other_name_problems_keep_the_name_as_the_skills_identity() -> None:
    assert analyze(VALID, folder_name="other").metadata.name == "pdf-forms"  # type: ignore[union-attr]
    assert analyze({**VALID, "name": "PDF_Forms"}).metadata.name == "PDF_Forms"  # type: ignore[union-attr]
    assert analyze({"description": "d"}, folder_name="pdf").metadata.name == "pdf"  # type: ignore[union-attr]


def test_frontmatter_round_trips_through_the_model() -> None:
    frontmatter = {
        **VALID,
        "license": "MIT",
        "allowed-tools": "Read Write",
        "metadata": {"author": "me"},
        "tags": ["a"],
        "context": "fork",
        "owner": "team",
    }
    meta = analyze(frontmatter).metadata
    assert meta is not None
    assert meta.to_frontmatter() == frontmatter


def test_skills_with_one_allowed_tools_text_share_its_rules() -> None:
    first, second = (
        analyze({**VALID, "allowed-tools": "Read Bash(git:*)"}).metadata for _ in range(2)
    )
    assert first is not None
    assert second is not None
    assert first.allowed_tools == ("Read", "Bash(git:*)")
    assert first.allowed_tools is second.allowed_tools  # split and checked once
    bad = [analyze({**VALID, "allowed-tools": "Bash(git"}) for _ in range(2)]
    assert [[p.code for p in a.report.errors + a.report.warnings] for a in bad] == [
        [codes.INVALID_VALUE]
    ] * 2  # a problem is reported every time
