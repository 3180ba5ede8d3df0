"""skillfs and skills-ref 0.1.1 (the reference implementation) agree on valid/invalid.

Every case runs both validators on the same folder. Where the verdicts differ on purpose the
case names the reason; any other difference fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from skills_ref.validator import validate as skills_ref_validate

from backends._errors import LimitExceededError
from skills_core import parse_skill_md, validate_skill
from skills_core._errors import SkillParseError

# Why skillfs's verdict may differ from skills-ref's.
WRONG_TYPES = "skillfs reads YAML types (PyYAML) and refuses non-strings where strings are due"
EXTENSION = "known extension field (Eino, adk-rust, echo-execution, Claude-style skills)"
YAML_SUBSET = (
    "skills-ref parses with strictyaml, which rejects YAML flow style and anchors; "
    "PyYAML and google-adk accept them (skillfs bounds aliases by Limits)"
)
FENCES = "skills-ref splits on '---' anywhere; skillfs fences are whole '---' lines"
BOM = "skillfs tolerates a UTF-8 byte order mark before the opening fence"
LIMITS = "skillfs refuses files over its size limits"

CASES: list[tuple[str, str, str, str | None]] = [
    # (id, folder, SKILL.md text, reason for a deliberate difference or None)
    ("minimal", "pdf", "---\nname: pdf\ndescription: Fill forms.\n---\nBody\n", None),
    (
        "all-spec-fields",
        "pdf",
        (
            "---\nname: pdf\ndescription: d\nlicense: MIT\ncompatibility: python3\n"
            "allowed-tools: Read Write\nmetadata:\n  author: me\n---\n"
        ),
        None,
    ),
    ("uppercase-name", "PDF", "---\nname: PDF\ndescription: d\n---\n", None),
    ("name-mismatch", "pdf", "---\nname: other\ndescription: d\n---\n", None),
    ("leading-hyphen", "-pdf", "---\nname: -pdf\ndescription: d\n---\n", None),
    ("double-hyphen", "a--b", "---\nname: a--b\ndescription: d\n---\n", None),
    ("underscore", "a_b", "---\nname: a_b\ndescription: d\n---\n", None),
    ("long-name", "a" * 65, f"---\nname: {'a' * 65}\ndescription: d\n---\n", None),
    ("unicode-name", "café", "---\nname: café\ndescription: d\n---\n", None),
    ("quoted-padded-name", "pdf", "---\nname: ' pdf '\ndescription: d\n---\n", None),
    ("empty-name", "pdf", "---\nname: ''\ndescription: d\n---\n", None),
    ("no-name", "pdf", "---\ndescription: d\n---\n", None),
    ("no-description", "pdf", "---\nname: pdf\n---\n", None),
    ("blank-description", "pdf", "---\nname: pdf\ndescription: '  '\n---\n", None),
    ("long-description", "pdf", f"---\nname: pdf\ndescription: {'d' * 1025}\n---\n", None),
    ("max-description", "pdf", f"---\nname: pdf\ndescription: {'d' * 1024}\n---\n", None),
    (
        "long-compatibility",
        "pdf",
        f"---\nname: pdf\ndescription: d\ncompatibility: {'c' * 501}\n---\n",
        None,
    ),
    ("unknown-field", "pdf", "---\nname: pdf\ndescription: d\nversion: '1'\n---\n", None),
    ("no-frontmatter", "pdf", "# PDF\n", None),
    ("unclosed", "pdf", "---\nname: pdf\ndescription: d\n", None),
    ("list-frontmatter", "pdf", "---\n- pdf\n---\n", None),
    ("folded-description", "pdf", "---\nname: pdf\ndescription: >\n  Fill\n  forms.\n---\n", None),
    ("crlf", "pdf", "---\r\nname: pdf\r\ndescription: d\r\n---\r\nBody\r\n", None),
    ("duplicate-key", "pdf", "---\nname: pdf\ndescription: d\ndescription: e\n---\n", None),
    ("invalid-yaml", "pdf", "---\nname: pdf\ndescription: a: b\n---\n", None),
    ("one-alias", "pdf", "---\nname: pdf\ndescription: &a d\nlicense: *a\n---\n", YAML_SUBSET),
    (
        "bool-compatibility",
        "pdf",
        "---\nname: pdf\ndescription: d\ncompatibility: yes\n---\n",
        WRONG_TYPES,
    ),
    ("int-description", "pdf", "---\nname: pdf\ndescription: 123\n---\n", WRONG_TYPES),
    ("scalar-metadata", "pdf", "---\nname: pdf\ndescription: d\nmetadata: foo\n---\n", WRONG_TYPES),
    (
        "float-metadata",
        "pdf",
        "---\nname: pdf\ndescription: d\nmetadata:\n  v: 1.0\n---\n",
        WRONG_TYPES,
    ),
    (
        "list-allowed-tools",
        "pdf",
        "---\nname: pdf\ndescription: d\nallowed-tools:\n  - Read\n---\n",
        WRONG_TYPES,
    ),
    ("context-fork", "pdf", "---\nname: pdf\ndescription: d\ncontext: fork\n---\n", EXTENSION),
    (
        "claude-fields",
        "pdf",
        "---\nname: pdf\ndescription: d\nargument-hint: '[f]'\nuser-invocable: false\n---\n",
        EXTENSION,
    ),
    ("tags-block", "pdf", "---\nname: pdf\ndescription: d\ntags:\n  - a\n---\n", EXTENSION),
    (
        "flow-metadata",
        "pdf",
        "---\nname: pdf\ndescription: d\nmetadata: {author: me}\n---\n",
        YAML_SUBSET,
    ),
    ("dashes-in-quotes", "pdf", "---\nname: pdf\ndescription: 'a --- b'\n---\n", FENCES),
    ("bom", "pdf", "\ufeff---\nname: pdf\ndescription: d\n---\n", BOM),
    ("huge-body", "pdf", "---\nname: pdf\ndescription: d\n---\n" + "x" * (1 << 20), LIMITS),
]


def skillfs_valid(folder: Path) -> bool:
    skill_md = next(p for p in (folder / "SKILL.md", folder / "skill.md") if p.exists())
    try:
        parsed = parse_skill_md(skill_md.read_bytes(), location=str(skill_md))
    except (SkillParseError, LimitExceededError):
        return False
    return validate_skill(parsed.frontmatter, folder_name=folder.name).valid


@pytest.mark.parametrize(
    ("folder", "text", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_verdicts_match_skills_ref_or_differ_for_a_stated_reason(
    tmp_path: Path, folder: str, text: str, reason: str | None
) -> None:
    skill_dir = tmp_path / folder
    skill_dir.mkdir()
    (skill_dir / "SKILL.md").write_bytes(text.encode())
    reference = not skills_ref_validate(skill_dir)
    ours = skillfs_valid(skill_dir)
    if reason is None:
        assert ours == reference
    else:
        assert ours != reference, f"no longer differs: {reason}"
        refuses_more = reason in (WRONG_TYPES, LIMITS)
        assert ours is not refuses_more, reason


def test_lowercase_skill_md_is_accepted_by_both(tmp_path: Path) -> None:
    skill_dir = tmp_path / "pdf"
    skill_dir.mkdir()
    (skill_dir / "skill.md").write_text("---\nname: pdf\ndescription: d\n---\n")
    assert skills_ref_validate(skill_dir) == []
    assert skillfs_valid(skill_dir)
