"""select_skills: adk-rust's scores, exactly, and its tests ported (select.rs)."""

from __future__ import annotations

import asyncio
import functools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skills_core._catalog.catalog import SkillCatalog
from skills_core.context._selection import (
    MAX_QUERY_CHARS,
    LexicalSkill,
    QueryTokens,
    SelectionPolicy,
    lexical_skills,
    select_skills,
    skill_tags,
)
from skills_core.context._words import tokenize
from tests.context.catalogs import CODE_SEARCH, RELEASE_NOTES, Skills, catalog_of, skill
from tests.support.examples import examples

ANY = SelectionPolicy(top_k=10, min_score=0.0)
SOME = SelectionPolicy(top_k=10, min_score=0.1)


@pytest.mark.parametrize(
    ("query", "score"),
    [
        # search: name 4 + description 2.5 + tags 2; rust: description 2.5; codebase: none.
        # 11 / sqrt(4 distinct body tokens: use, rg, files, then) = 5.5
        ("search rust codebase", 5.5),
        # search counts twice: 2 * 8.5; code: name 4 + description 2.5 + tags 2 -> 25.5 / 2
        ("search search code", 12.75),
        ("rg", (2.5 + 1.0) / 2),
        ("RG!", (2.5 + 1.0) / 2),
    ],
)
async def test_scores_are_adk_rusts(query: str, score: float) -> None:
    catalog = await catalog_of({"code-search": CODE_SEARCH})
    [match] = select_skills(catalog, query, ANY)
    assert (match.name, match.score) == ("code-search", score)
    assert match.location == "memory://code-search/SKILL.md"
    assert match.tags == ("code", "search")


async def test_selects_most_relevant_skill() -> None:
    catalog = await catalog_of({"code-search": CODE_SEARCH, "release-notes": RELEASE_NOTES})
    matches = select_skills(catalog, "search rust codebase", SelectionPolicy(min_score=0.1))
    assert [match.name for match in matches] == ["code-search"]


async def test_returns_empty_when_unrelated() -> None:
    release = skill("release", "Release process", "Bump versions and publish.")
    catalog = await catalog_of({"release": release})
    policy = SelectionPolicy(min_score=2.0)
    assert select_skills(catalog, "quantum entanglement", policy) == []


async def test_include_and_exclude_tags_filter_results() -> None:
    code = skill("code", "code search", "Use rg.\n", frontmatter="tags: [code, search]")
    release = skill("release", "release notes", "Summarize commits.\n", frontmatter="tags: [docs]")
    catalog = await catalog_of({"code": code, "release": release})
    policy = SelectionPolicy(top_k=5, min_score=0.1, include_tags=["code"], exclude_tags=["docs"])
    assert [match.name for match in select_skills(catalog, "search", policy)] == ["code"]


async def test_exclude_wins_over_include_and_tags_ignore_case() -> None:
    both = skill("both", "search both", "x", frontmatter="tags: [Code, Docs]")
    catalog = await catalog_of({"both": both, "code-search": CODE_SEARCH})
    include = SelectionPolicy(top_k=5, min_score=0.0, include_tags=["CODE"])
    assert [m.name for m in select_skills(catalog, "search", include)] == ["code-search", "both"]
    excluded = SelectionPolicy(top_k=5, min_score=0.0, include_tags=["code"], exclude_tags=["docs"])
    assert [m.name for m in select_skills(catalog, "search", excluded)] == ["code-search"]


def test_a_tag_string_is_refused_not_split_into_letters() -> None:
    with pytest.raises(TypeError, match="not the string 'code'"):
        SelectionPolicy(include_tags="code")


async def test_metadata_tags_count_like_frontmatter_tags() -> None:
    tagged = skill(
        "gamma", "Handle things", "x", frontmatter="metadata:\n  tags: 'plumber, Gas-Leak'"
    )
    catalog = await catalog_of({"gamma": tagged})
    [match] = select_skills(catalog, "leak", ANY)
    assert match.tags == ("plumber", "Gas-Leak")
    assert match.score == 2.0  # the tag's tokens are gas and leak; one body token: x
    by_tag = SelectionPolicy(min_score=0.0, include_tags=["gas-leak"])
    assert [m.name for m in select_skills(catalog, "", by_tag)] == ["gamma"]


async def test_skill_tags_merge_and_deduplicate() -> None:
    text = skill("t", "d", "x", frontmatter="tags: [a, b]\nmetadata:\n  tags: [b, c]")
    catalog = await catalog_of({"t": text})
    assert skill_tags(catalog.metadata("t")) == ("a", "b", "c")  # the list arrives as its text


async def test_an_empty_query_selects_nothing_unless_tags_are_included() -> None:
    catalog = await catalog_of({"code-search": CODE_SEARCH, "release-notes": RELEASE_NOTES})
    assert select_skills(catalog, "", ANY) == []
    assert select_skills(catalog, " ...! ", ANY) == []
    tagged = SelectionPolicy(top_k=5, min_score=0.0, include_tags=["changelog"])
    [match] = select_skills(catalog, "", tagged)
    assert (match.name, match.score) == ("release-notes", 0.0)
    assert select_skills(catalog, "", SelectionPolicy(include_tags=["changelog"])) == []


async def test_top_k_and_ties_sort_by_name() -> None:
    skills = {name: skill(name, "Fill forms", "Same body.") for name in ("c", "a", "b")}
    catalog = await catalog_of(skills)
    matches = select_skills(catalog, "forms", SelectionPolicy(top_k=2))
    assert [(m.name, m.score) for m in matches] == [("a", 2.5 / 2**0.5), ("b", 2.5 / 2**0.5)]
    assert select_skills(catalog, "forms", SelectionPolicy(top_k=0)) == []


async def test_default_policy_keeps_the_top_match_at_or_over_one() -> None:
    catalog = await catalog_of({"code-search": CODE_SEARCH, "release-notes": RELEASE_NOTES})
    assert [m.name for m in select_skills(catalog, "release notes")] == ["release-notes"]
    assert select_skills(catalog, "then") == []  # body only: 1 / 2 = 0.5 < 1.0


async def test_refused_skills_are_never_selected() -> None:
    catalog = await catalog_of(
        {"broken": "no frontmatter, search rust", "code-search": CODE_SEARCH}
    )
    assert [m.name for m in select_skills(catalog, "search rust", ANY)] == ["code-search"]


async def test_a_refresh_retokenizes_only_the_changed_skill() -> None:
    skills = Skills({f"s{i:02d}": skill(f"s{i:02d}", f"Skill {i}", "Body.") for i in range(20)})
    await skills.catalog.refresh()
    derived = lexical_skills(skills.catalog)
    assert select_skills(skills.catalog, "skill 3", ANY)
    assert derived.derived == 20
    skills.put("s07", skill("s07", "Skill seven, plumbing", "Fix a leak."))
    skills.backend.remove("s08")
    await skills.catalog.refresh()
    [match] = select_skills(skills.catalog, "plumbing", SOME)
    assert match.name == "s07"
    assert derived.derived == 21
    assert "s08" not in {m.name for m in select_skills(skills.catalog, "skill 8", SOME)}
    await skills.catalog.refresh()  # nothing changed
    select_skills(skills.catalog, "skill", ANY)
    assert derived.derived == 21


def reference_tokenize(text: str) -> list[str]:
    """adk-rust's tokenizer, character by character."""
    tokens, current = [], ""
    for char in text:
        if char.isascii() and char.isalnum():
            current += char.lower()
        elif current:
            tokens.append(current)
            current = ""
    return [*tokens, current] if current else tokens


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokens_are_runs_of_ascii_letters_and_digits(text: str) -> None:
    assert tokenize(text) == reference_tokenize(text)


def test_non_ascii_characters_separate_tokens() -> None:
    text = "Résumé PDF-forms, K\u212a x\u0130y 42"  # Kelvin sign, dotted capital I
    assert tokenize(text) == ["r", "sum", "pdf", "forms", "k", "x", "y", "42"]


def crate_score(skill: LexicalSkill, query: str) -> float:
    """adk-rust's score, as the crate adds it: token by token, a repeated token each time."""
    total = 0.0
    for token in tokenize(query):
        if token in skill.name_tokens:
            total += 4.0
        if token in skill.description_tokens:
            total += 2.5
        if token in skill.tag_tokens:
            total += 2.0
        if token in skill.body_tokens:
            total += 1.0
    return total / math.sqrt(max(len(skill.body_tokens), 1))


def crate_scores(catalog: SkillCatalog, query: str) -> dict[str, float]:
    return {skill.name: crate_score(skill, query) for skill in lexical_skills(catalog).values()}


def scores(catalog: SkillCatalog, query: str) -> dict[str, float]:
    return {m.name: m.score for m in select_skills(catalog, query, SelectionPolicy(100, 0.0))}


VOCABULARY = (
    *("search", "rust", "code", "rg", "files", "release", "notes"),
    *("summarize", "commits", "leak", "gas", "flood", "x"),
)


@functools.cache
def vocabulary_catalog() -> SkillCatalog:
    words = VOCABULARY[:-1]
    skills = {
        f"s{i}": skill(
            f"s{i}",
            " ".join(words[i : i + 3]),
            " ".join(words[i * 2 :] * (i + 1)) + " x" * i,
            frontmatter=f"tags: [{words[-i]}, Gas-Leak]",
        )
        for i in range(6)
    }
    return asyncio.run(catalog_of({**skills, "code-search": CODE_SEARCH}))


separators = st.sampled_from([" ", "  ", "\n", "-", "!? ", "é", "\u212a"])
words = st.one_of(st.sampled_from(VOCABULARY), st.sampled_from(["RG", "Search"]), st.text())
messages = st.lists(st.tuples(words, separators), max_size=60).map(
    lambda pairs: "".join(word + separator for word, separator in pairs)
)


@settings(max_examples=examples(200), deadline=None)
@given(messages)
def test_scores_equal_the_crates_token_by_token_sum(message: str) -> None:
    catalog = vocabulary_catalog()
    expected = crate_scores(catalog, message) if tokenize(message) else {}
    assert scores(catalog, message) == expected  # the same floats, bit for bit


async def test_a_long_message_is_scored_on_its_first_max_query_chars_only() -> None:
    catalog = await catalog_of({"code-search": CODE_SEARCH, "release-notes": RELEASE_NOTES})
    phrase = "please search the rust code with rg "
    head = (phrase * (MAX_QUERY_CHARS // len(phrase))).ljust(MAX_QUERY_CHARS)
    message = head + " release notes prepare" * 50_000  # 1.1 MB; the crate would pick notes
    assert len(message) > 1_000_000
    crate = crate_scores(catalog, message)
    assert max(crate, key=crate.__getitem__) == "release-notes"
    assert scores(catalog, message) == scores(catalog, head) == crate_scores(catalog, head)
    assert [m.name for m in select_skills(catalog, message)] == ["code-search"]
    query = QueryTokens(message)  # what scoring reads: the head's tokens, nothing after
    assert sum(query.counts.values()) == len(tokenize(head))
    assert query.distinct == {"please", "search", "the", "rust", "code", "with", "rg"}
