"""A skill's ``paths``: echo-execution's matches_context_path / validate_paths, gitignore globs."""

from __future__ import annotations

import pytest

from backends import MemoryBackend
from skills_core import SkillCatalog, SkillMetadata
from skills_core import _codes as codes
from skills_core._format.matching import matches_context_path, validate_paths
from skills_core._format.validation import validate_skill


def with_paths(*paths: str) -> SkillMetadata:
    return SkillMetadata(name="py-style", description="Python style.", paths=paths)


def test_echo_execution_cases() -> None:
    skill = with_paths("*.py", "tests/**")
    assert skill.matches_context_path("main.py")
    assert skill.matches_context_path("./tests/unit/test_demo.rs")
    assert not skill.matches_context_path("src/main.rs")


def test_a_skill_without_paths_applies_everywhere() -> None:
    assert with_paths().matches_context_path("anything/at/all.txt")


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "src/deep/a.py", True),  # no slash: the file name alone may match
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/deep/a.py", False),  # '*' stays within one segment
        ("src/**/*.py", "src/a.py", True),  # '**' is zero or more folders
        ("src/**/*.py", "src/x/y/a.py", True),
        ("src/**/*.{ts,tsx}", "src\\ui\\App.tsx", True),  # braces; backslashes accepted
        ("src/**/*.{ts,tsx}", "src/ui/App.js", False),
        ("docs/", "docs/guide/intro.md", True),  # a trailing slash: everything below
        ("/Makefile", "Makefile", True),  # a leading slash anchors to the root
        ("/Makefile", "sub/Makefile", False),
        ("test_?.py", "test_a.py", True),
        ("[!a]b.txt", "cb.txt", True),
        ("[!a]b.txt", "ab.txt", False),
        ("[a-c]x", "bx", True),
        ("./src/*.rs", "src/main.rs", True),
        ("*.py", ".//src/./a.py", True),
    ],
)
def test_gitignore_semantics(pattern: str, path: str, matches: bool) -> None:
    assert matches_context_path([pattern], path) is matches


@pytest.mark.parametrize("pattern", ["../secret.txt", "src/[ab", "{foo,bar", "a**b/*.py", ""])
def test_a_broken_pattern_never_matches(pattern: str) -> None:
    assert not matches_context_path([pattern], "../secret.txt")
    assert not matches_context_path([pattern], "foo")


def test_a_skill_whose_patterns_are_all_broken_applies_nowhere() -> None:
    # Dropping them would make the skill apply everywhere: the opposite of what was meant.
    assert not with_paths("src/[ab").matches_context_path("src/a")


def test_validate_paths_warns_on_each_kind_of_problem() -> None:
    assert validate_paths(
        ["*.py", "src/**/*.rs", "tests/**", "../secret.txt", "{foo,bar", "[ab", "**", "*"]
    ) == [
        "path pattern '../secret.txt' contains '..', which is not allowed",
        "path pattern '{foo,bar' has unbalanced braces",
        "path pattern '[ab' has unbalanced brackets",
        "path pattern '**' matches every file",
        "path pattern '*' matches every file",
    ]
    assert validate_paths(["src/a**/b"]) == [
        "path pattern 'src/a**/b' has '**' inside a segment; use it as a whole segment ('a/**/b')"
    ]


def test_braces_may_not_explode() -> None:
    pattern = "{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}{a,b}"
    assert validate_paths([pattern]) == [
        f"path pattern {pattern!r} expands to more than 64 alternatives"
    ]


async def test_paths_as_one_string_keep_commas_inside_braces() -> None:
    catalog = await catalog_of({"x": "paths: 'src/**/*.{ts,tsx}, docs/*.md'"})
    assert catalog.metadata("x").paths == ("src/**/*.{ts,tsx}", "docs/*.md")
    assert catalog.warnings == ()


def test_validation_reports_broken_patterns_and_advises_on_broad_ones() -> None:
    report = validate_skill({"name": "x", "description": "d", "paths": ["src/[ab", "**"]})
    assert [(issue.code, issue.message) for issue in report.errors] == [
        (codes.INVALID_VALUE, "'paths' pattern 'src/[ab' has unbalanced brackets")
    ]
    assert [(issue.code, issue.message) for issue in report.warnings] == [
        (
            codes.BROAD_PATHS,
            "'paths' pattern '**' matches every file: the skill applies everywhere, as "
            "without 'paths'",
        )
    ]


def skill_text(name: str, frontmatter: str) -> str:
    return f"---\nname: {name}\ndescription: d\n{frontmatter}\n---\nBody.\n"


async def catalog_of(skills: dict[str, str], *, strict: bool = False) -> SkillCatalog:
    """A loaded catalog of ``{name: extra frontmatter}``."""
    backend = MemoryBackend(
        {name: {"SKILL.md": skill_text(name, extra)} for name, extra in skills.items()}
    )
    catalog = SkillCatalog(backend, strict=strict)
    await catalog.refresh()
    return catalog


async def test_a_catalog_loads_skills_with_path_problems_and_says_why() -> None:
    skills = {"broad": "paths: '**'", "broken": "paths: ['*.py', 'src/[ab']"}
    catalog = await catalog_of(skills)
    assert [meta.name for meta in catalog.list()] == ["broad", "broken"]
    found = {(problem.name, problem.code) for problem in catalog.warnings}
    assert found == {("broad", codes.BROAD_PATHS), ("broken", codes.INVALID_VALUE)}
    assert catalog.metadata("broken").matches_context_path("a.py")
    assert not catalog.metadata("broken").matches_context_path("src/a")
    strict = await catalog_of(skills, strict=True)
    assert [meta.name for meta in strict.list()] == ["broad"]  # advice never refuses


def test_catalog_line_names_the_path_constraint() -> None:
    plain = SkillMetadata(name="pdf-processing", description="Extract PDF text, fill forms.")
    assert plain.catalog_line() == "- pdf-processing: Extract PDF text, fill forms."
    assert with_paths("*.py", "tests/**").catalog_line() == (
        "- py-style: Python style. [activates for: *.py, tests/**]"
    )
