"""Lenient loading, as agentskills.io's client-implementation guide asks (issue #13.6).

Warn and load when a name differs from its folder or is over 64 characters; skip only a skill
without a description or whose YAML cannot be read, after quoting unquoted colons
(``description: Use when: ...``). ``strict=True`` and ``skillfs validate`` keep the spec's
strict verdict. The fixture has the shape of vercel-labs/agent-skills: four of its seven skills
are named ``vercel-<folder>``, one has an unquoted colon in its description.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backends import LocalBackend, MemoryBackend
from skills_core import SkillCatalog
from skills_core import _codes as codes
from skills_core.tools._factory import SkillTools
from tests.cli.conftest import RunCli, cli, terminal_width  # noqa: F401 - fixtures

PREFIXED = (
    "composition-patterns",
    "react-best-practices",
    "react-native-skills",
    "view-transitions",
)
VERCEL_LIKE = {
    **{
        folder: f"---\nname: vercel-{folder}\ndescription: Guidance on {folder}.\n---\n# {folder}\n"
        for folder in PREFIXED
    },
    "deploy-to-vercel": (
        "---\nname: deploy-to-vercel\ndescription: Deploy an app. Use when: the user says "
        "'deploy' or 'ship it'.\nlicense: MIT\n---\n# Deploy\n"
    ),
    "vercel-cli-with-tokens": (
        "---\nname: vercel-cli-with-tokens\ndescription: Use the CLI with tokens.\n---\n# CLI\n"
    ),
    "web-design-guidelines": (
        "---\nname: web-design-guidelines\ndescription: Review UI code.\n---\n# Guidelines\n"
    ),
}
SERVED = sorted(
    [f"vercel-{folder}" for folder in PREFIXED]
    + ["deploy-to-vercel", "vercel-cli-with-tokens", "web-design-guidelines"]
)


@pytest.fixture
def vercel_like(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for folder, text in VERCEL_LIKE.items():
        (root / folder / "rules").mkdir(parents=True)
        (root / folder / "SKILL.md").write_text(text)
        (root / folder / "rules" / "first.md").write_text(f"# First rule of {folder}\n")
    return root


async def test_every_skill_of_the_collection_loads_under_its_frontmatter_name(
    vercel_like: Path,
) -> None:
    catalog = SkillCatalog(LocalBackend(vercel_like))

    report = await catalog.refresh()

    assert report.errors == ()
    assert list(report.added) == SERVED
    warned = sorted((problem.name, problem.code) for problem in report.warnings)
    assert warned == sorted(
        [(f"vercel-{folder}", codes.NAME_MISMATCH) for folder in PREFIXED]
        + [("deploy-to-vercel", codes.UNQUOTED_COLON)]
    )
    assert catalog.metadata("deploy-to-vercel").description == (
        "Deploy an app. Use when: the user says 'deploy' or 'ship it'."
    )
    assert catalog.metadata("deploy-to-vercel").license == "MIT"
    tools = SkillTools(catalog)
    loaded = await tools.load_skill("vercel-react-best-practices")
    assert loaded["files"] == ["rules/first.md"]
    rule = await tools.load_skill_resource("vercel-react-best-practices", "rules/first.md")
    assert rule["content"] == "# First rule of react-best-practices\n"


async def test_a_strict_catalog_keeps_the_specs_verdict(vercel_like: Path) -> None:
    catalog = SkillCatalog(LocalBackend(vercel_like), strict=True)

    report = await catalog.refresh()

    assert list(report.added) == ["vercel-cli-with-tokens", "web-design-guidelines"]
    refused = sorted((problem.name, problem.code) for problem in report.errors)
    assert refused == sorted(
        [(folder, codes.NAME_MISMATCH) for folder in PREFIXED]
        + [("deploy-to-vercel", codes.INVALID_YAML)]
    )


def test_list_serves_what_validate_calls_invalid(cli: RunCli, vercel_like: Path) -> None:  # noqa: F811
    listed = cli("list", vercel_like)
    assert listed.code == 0
    assert [line.split()[0] for line in listed.out.splitlines()[1:]] == SERVED
    location = vercel_like / "react-best-practices" / "SKILL.md"
    assert (
        f"warning: {location}: 'name' 'vercel-react-best-practices' must equal its folder name "
        "'react-best-practices' [NAME_MISMATCH]"
    ) in listed.err.splitlines()
    colon = vercel_like / "deploy-to-vercel" / "SKILL.md"
    assert (
        f"warning: {colon}: line 3: the value of 'description' holds an unquoted ': ', which YAML "
        "refuses; read as a quoted string [UNQUOTED_COLON]"
    ) in listed.err.splitlines()

    validated = cli("validate", vercel_like)
    assert validated.code == 1
    assert validated.out.splitlines()[-1] == (
        "7 skills checked: 2 valid, 5 invalid (5 errors, 0 warnings)"
    )
    assert f"error: {location}: " in validated.err
    assert f"error: {colon}: invalid YAML at line 3: " in validated.err


LENIENT_CASES = {
    "x" * 70: (
        "---\nname: " + "x" * 70 + "\ndescription: d\n---\nB\n",
        "x" * 70,
        codes.NAME_INVALID,
    ),
    "no-name": ("---\ndescription: d\n---\nB\n", "no-name", codes.NAME_MISSING),
    "two-colons": (
        "---\nname: two-colons\ndescription: Use when: a: b # not part of it\n---\nB\n",
        "two-colons",
        codes.UNQUOTED_COLON,
    ),
    "quote-inside": (
        "---\nname: quote-inside\ndescription: It's here: use it\n---\nB\n",
        "quote-inside",
        codes.UNQUOTED_COLON,
    ),
}
REFUSED_CASES = {
    "no-description": ("---\nname: no-description\n---\nB\n", codes.DESCRIPTION_MISSING),
    "empty-description": (
        "---\nname: empty-description\ndescription: ''\n---\nB\n",
        codes.DESCRIPTION_MISSING,
    ),
    "unreadable": ("---\nname: unreadable\ndescription: [oops: x\n---\nB\n", codes.INVALID_YAML),
    "continued": (
        "---\nname: continued\ndescription: Use when: a\n  continued: here\n---\nB\n",
        codes.INVALID_YAML,
    ),
    "unsafe-name": ("---\nname: ../escape\ndescription: d\n---\nB\n", codes.NAME_INVALID),
    "control-name": ('---\nname: "bell\\a"\ndescription: d\n---\nB\n', codes.NAME_INVALID),
}


async def test_warn_and_load_or_skip_as_the_client_guide_says() -> None:
    backend = MemoryBackend(
        {
            folder: {"SKILL.md": text}
            for folder, (text, *_) in {**LENIENT_CASES, **REFUSED_CASES}.items()
        }
    )
    catalog = SkillCatalog(backend)

    report = await catalog.refresh()

    assert sorted(report.added) == sorted(served for _, served, _ in LENIENT_CASES.values())
    assert {(p.name, p.code) for p in report.warnings} == {
        (served, code) for _, served, code in LENIENT_CASES.values()
    }
    assert {(p.name, p.code) for p in report.errors} == {
        (folder, code) for folder, (_, code) in REFUSED_CASES.items()
    }
    assert catalog.metadata("two-colons").description == "Use when: a: b"
    assert catalog.metadata("quote-inside").description == "It's here: use it"
