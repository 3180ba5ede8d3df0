"""Ranked search weighs fields as authors write them for routing (generated look-alike skills)."""

from __future__ import annotations

import json

import pytest

from skills_core import SkillCatalog
from skills_core.context import _words as words
from skills_core.context._search import rank_skills, search_index
from skills_core.context._selection import STRONG, WEAK, SelectionPolicy
from tests.context.catalogs import catalog_of, skill
from tests.context.lookalikes import CLAUSES, lookalike_description, lookalike_names

EVERYTHING = SelectionPolicy(top_k=100, min_score=0.0)


@pytest.fixture(autouse=True, params=["native", "python"])
def postings_built(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs on the C postings and again on their pure-Python twin."""
    if request.param == "python":
        monkeypatch.setattr(words, "NATIVE", None)


def lookalikes(count: int) -> dict[str, str]:
    """``count`` generated skills shaped like a public collection's, bodies of 60-300 words."""
    return {
        name: skill(
            name,
            json.dumps(lookalike_description(index, name)),
            "\n".join(
                f"## Step {step}\n{CLAUSES[(index + step) % len(CLAUSES)]}."
                for step in range(3 + index % 12)
            ),
        )
        for index, name in enumerate(lookalike_names(count))
    }


async def lookalike_catalog_with(extra: dict[str, str], count: int = 40) -> SkillCatalog:
    """``count`` look-alike skills and ``extra``."""
    return await catalog_of({**lookalikes(count), **extra})


BROAD_BODY = " ".join(
    ["Work with data files, tables, rows and columns: load, clean, remove duplicates, convert."]
    * 150
)
"""A long, broad skill's body: generic words, each many times (about 2,100 words)."""


async def test_a_long_broad_skill_does_not_outrank_a_short_skill_whose_description_fits() -> None:
    catalog = await lookalike_catalog_with(
        {
            "data-helper": skill(
                "data-helper", "General helper for everyday data work.", BROAD_BODY
            ),
            "dedupe-rows": skill("dedupe-rows", "Remove duplicate rows from tables.", "Run it."),
        }
    )
    found = rank_skills(catalog, "remove the duplicate rows from my data table", EVERYTHING)
    assert [m.name for m in found[:2]] == ["dedupe-rows", "data-helper"]  # main: the reverse


async def test_a_description_match_beats_a_body_only_match() -> None:
    catalog = await lookalike_catalog_with(
        {
            "keytab-rotation": skill("keytab-rotation", "Rotate kerberos keytabs.", "Steps below."),
            "server-notes": skill(
                "server-notes",
                "Notes for running a server.",
                "Check the disks. Rotate the keytab, then rotate the kerberos keytab again; "
                "a keytab expires.",
            ),
        }
    )
    found = rank_skills(catalog, "rotate kerberos keytab", EVERYTHING)
    assert [m.name for m in found[:2]] == ["keytab-rotation", "server-notes"]  # main: the reverse
    assert found[0].strength == STRONG


async def test_an_unfitting_request_sharing_a_body_word_is_weak() -> None:
    """A wedding toast is no front-end work, whatever the body says of toast messages."""
    frontend = skill(
        "frontend-patterns",
        "Patterns for web front ends: state, forms, routing.",
        "## Steps\n"
        + "Build the page, check the layout, then fetch data and render it. " * 2
        + "Show a toast after saving; toast messages stack. " * 3,
    )
    catalog = await lookalike_catalog_with({"frontend-patterns": frontend}, count=60)
    [match] = rank_skills(catalog, "wedding toast")
    assert (match.name, match.strength) == ("frontend-patterns", WEAK)  # main: strong
    assert match.score <= search_index(catalog).strong_bar()


async def test_routing_metadata_is_scored_with_the_tags() -> None:
    tagged = skill(
        "ledger-lab",
        "Work on ledgers.",
        "Steps.",
        frontmatter="metadata:\n  short-description: reconcile bank statements\n  author: someone",
    )
    catalog = await lookalike_catalog_with({"ledger-lab": tagged})
    [match] = rank_skills(catalog, "reconcile statements")
    assert match.name == "ledger-lab"  # main: nothing found
    assert rank_skills(catalog, "someone") == []  # an author is no routing text
