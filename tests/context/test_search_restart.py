"""A search restarted from the words the persistent cache keeps ranks as a fresh one does.

What the cache keeps of a body (:func:`counted_words`: its words, each as often as it holds
it) is counted by both postings exactly as the body is; a catalog of generated look-alike
skills, searched in a new process from those words, gives the rankings, scores and strong bar
of a catalog searched from its bodies in this one.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends import LocalBackend
from backends.testing import skill_md
from skills_core import CatalogCache, SkillCatalog
from skills_core.context import SelectionPolicy, search_index
from skills_core.context import _search as search
from skills_core.context._search import counted_words
from tests.context.test_body_words import IMPLEMENTATIONS, words_of
from tests.support.examples import examples

WORDS = (
    *("invoice", "invoices", "invoicing", "ledger", "ledgers", "quaternion", "rotate", "rotating"),
    *("deploy", "deployment", "pipeline", "schema", "query", "queries", "chart", "plotting"),
    *("Übersetzung", "für", "naïve", "café", "データ", "x86_64", "v2", "42", "don't", "it's"),
)
MARKUP = ("\n\n## ", ". ", ", ", "\n- ", " `", "` ", " (", ") ", "\n```\n", " --- ", " … ")


def lookalike_body(rng: random.Random) -> str:
    """A markdown body of 0-400 words from a small shared vocabulary, with markup between."""
    parts = []
    for _ in range(rng.randint(0, 400)):
        parts.append(rng.choice(WORDS) if rng.random() < 0.9 else f"id{rng.randint(0, 999)}")
        parts.append(rng.choice(MARKUP) if rng.random() < 0.2 else " ")
    return "".join(parts)


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=600) | st.text(max_size=300).map(str.encode))
def test_the_kept_words_count_as_the_body(data: bytes) -> None:
    for made in IMPLEMENTATIONS:
        assert words_of(made(), counted_words(data)) == words_of(made(), data)
        assert made().count(counted_words(data)).length == made().count(data).length


@pytest.mark.parametrize("postings", IMPLEMENTATIONS, ids=lambda made: made.__module__)
async def test_a_restarted_search_ranks_generated_skills_as_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postings: object
) -> None:
    monkeypatch.setattr(search, "new_postings", postings)
    rng = random.Random(32)
    for index in range(60):
        name = f"skill-{index:02d}"
        description = " ".join(rng.sample(WORDS, 6)) + "."
        text = skill_md(name, description, lookalike_body(rng))
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_bytes(text)
    backend = LocalBackend(tmp_path / "skills")
    fresh = search_index(SkillCatalog(backend))
    await fresh.catalog.refresh()
    first = SkillCatalog(backend, cache=CatalogCache(tmp_path / "cache"))
    await first.refresh()
    await search_index(first).search_async("ledger")  # keeps every body's words
    restarted = SkillCatalog(backend, cache=CatalogCache(tmp_path / "cache"))
    assert (await restarted.refresh()).fetched == 0
    index = search_index(restarted)

    policy = SelectionPolicy(top_k=60)
    queries = [*WORDS, "invoice ledger rotation", "a query no skill answers", "id7 id512"]
    for query in queries:
        expected = [(m.name, m.score, m.strength) for m in await fresh.search_async(query, policy)]
        found = [(m.name, m.score, m.strength) for m in await index.search_async(query, policy)]
        assert found == expected, query
    assert index.strong_bar() == fresh.strong_bar()
