"""Body words: the C postings and their pure-Python twin keep one contract, word for word."""

from __future__ import annotations

import logging
import random
import shutil
import threading
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skills_core.context import _words as words
from skills_core.context._words import (
    NATIVE,
    SHELVES,
    Postings,
    PythonPostings,
    WordCounts,
    body_tokens,
    new_postings,
    search_tokens,
    tokenize,
)
from tests.support.examples import examples

IMPLEMENTATIONS: list[Callable[[], Postings]] = [PythonPostings]
if NATIVE is not None:
    IMPLEMENTATIONS.append(NATIVE)


@pytest.fixture(params=IMPLEMENTATIONS, ids=lambda made: made.__module__.rsplit(".", 1)[-1])
def postings(request: pytest.FixtureRequest) -> Postings:
    made: Callable[[], Postings] = request.param
    return made()


def words_of(postings: Postings, data: bytes) -> list[tuple[str, int]]:
    """A body's distinct words in order of first occurrence, each with its count, as posted."""
    counts = postings.count(data)
    postings.add({"probe": counts})
    try:
        words = [postings.word(counts, at) for at in range(len(counts))]
        return [(word, postings.counts([word])["probe"]) for word in words]
    finally:
        postings.remove("probe")


def test_the_extension_is_built_where_a_c_compiler_is() -> None:
    """CI and every developer machine have one: a silent fallback would hide a broken build."""
    if shutil.which("cc") or shutil.which("gcc"):
        assert NATIVE is not None
        assert type(new_postings()) is NATIVE
    words.NATIVE, native = None, words.NATIVE
    try:
        assert type(new_postings()) is PythonPostings
    finally:
        words.NATIVE = native


def test_the_twin_is_logged_once_where_the_extension_should_have_built(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(words, "NATIVE", None)
    words._warn_twin.cache_clear()
    for expected in (False, True):
        monkeypatch.setattr(words, "EXPECTED_NATIVE", expected)
        with caplog.at_level(logging.WARNING, logger=words.__name__):
            assert all(isinstance(new_postings(), PythonPostings) for _ in range(3))
    assert [record.getMessage() for record in caplog.records] == [
        "skills_core.context._body_words is not built: ranked search runs on its pure-Python "
        "twin, about 3x slower to index (install a C compiler, then reinstall agent-skillfs)"
    ]


def test_a_body_is_cut_as_body_tokens_cuts_it(postings: Postings) -> None:
    data = "Résumé PDF-forms, K\u212a x\u0130y 42 pdf PDF forms_2 Straße 日本語".encode()
    counts = postings.count(data)
    assert counts.length == len(body_tokens(data)) == 13
    assert len(counts) == 10
    assert words_of(postings, data) == [
        ("résumé", 1),
        ("pdf", 3),
        ("forms", 2),
        ("kk", 1),  # the Kelvin sign is a K
        ("xi\u0307y", 1),  # a dotted capital I casefolds to i and a dot above
        ("42", 1),
        ("2", 1),
        ("strasse", 1),
        ("日本", 1),
        ("本語", 1),
    ]


@pytest.mark.parametrize("data", [b"", b"   ", b"\xff\xfe--\x00\n", "— … → 🙂 \u0301".encode()])
def test_a_body_without_words_counts_none(postings: Postings, data: bytes) -> None:
    counts = postings.count(data)
    assert (counts.length, len(counts)) == (0, 0)
    postings.add({"empty": counts})
    assert len(postings) == 1
    assert postings.counts(["a"]) == {}


MULTILINGUAL = (
    "Résumé Straße STRASSE İstanbul \u0131i Σίσυφος ΣΑΣ Москва Ёж العربية हिन्दी अनुवाद"
    " 日本語のテスト"
    "翻訳 中文转换 한국어를 ภาษาไทย ພາສາລາວ ភាសាខ្មែរ မြန်မာ \ufb01 \uff21\uff22\uff23\uff11\uff12"
    " ٣٤ ४२ 🙂👍🏽 ❤️ e\u0301 =\u0338 a\u0300\u0316 \u200d\u00ad x_y-z.9 \t\n"
)
"""Letters, digits, marks and signs of many scripts (generated text draws from them)."""

multilingual = st.text(st.sampled_from(MULTILINGUAL) | st.characters(), max_size=200)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.binary(max_size=600)
    | (st.text(max_size=300) | multilingual).map(lambda text: text.encode("utf-8", "surrogatepass"))
)
def test_counts_equal_counter_over_tokenize(data: bytes) -> None:
    """Both cut only the words holding bytes past ASCII: as if the whole text were cut."""
    assert body_tokens(data) == words._cut(words.normal_text(data))
    expected = Counter(body_tokens(data))
    for made in IMPLEMENTATIONS:
        postings = made()
        assert words_of(postings, data) == list(expected.items())
        assert postings.count(data).length == expected.total()


def test_many_distinct_and_long_words_are_told_apart(postings: Postings) -> None:
    """Past every table's first size, words sharing 8- and 16-byte prefixes stay distinct."""
    rng = random.Random(7)
    words = [f"w{i}" for i in range(70_000)] + [
        "abcdefgh" * 3 + str(i) for i in range(500)
    ]  # 25-27 bytes each
    words += ["x" * 300, "x" * 301, "y" * 5_000]
    tokens = [rng.choice(words) for _ in range(120_000)] + words
    data = " ".join(tokens).encode()
    expected = Counter(tokens)
    postings.add({"big": postings.count(data), "small": postings.count(b"x" * 300)})
    assert dict(words_of(postings, data)) == expected
    assert postings.counts(["x" * 300]) == {"big": expected["x" * 300], "small": 1}
    assert postings.counts(["y" * 5_000]) == {"big": expected["y" * 5_000]}
    assert postings.held(["abcdefgh" * 3 + "499", "abcdefgh" * 3 + "500", "x" * 302]) == [
        "abcdefgh" * 3 + "499"
    ]


def test_postings_follow_adds_and_removals(postings: Postings) -> None:
    postings.add(
        {
            "a": postings.count(b"deploy deploys deploy"),
            "b": postings.count(b"Deploys and plots"),
        }
    )
    assert postings.held(["plot", "deploys", "nothing", "plots", "Deploy", "café"]) == [
        "deploys",
        "plots",
    ]
    assert postings.counts(["deploy", "deploys"]) == {"a": 3, "b": 1}
    postings.remove("a")
    assert len(postings) == 1
    assert postings.counts(["deploy", "deploys"]) == {"b": 1}
    assert postings.held(["deploy"]) in ([], ["deploy"])  # the twin may name a removed word
    postings.add({"a": postings.count(b"plots")})
    assert postings.counts(["plots"]) == {"a": 1, "b": 1}


def test_counts_weigh_each_occurrence_by_its_body_length(postings: Postings) -> None:
    """BM25's normalisation: a word in a body twice the average length weighs less."""
    postings.add(
        {
            "short": postings.count(b"pdf forms"),  # 2 words
            "long": postings.count(b"pdf pdf and more words here"),  # 6 words
        }
    )
    b, average = 0.75, 4.0
    assert postings.counts(["pdf", "forms"], b, average) == pytest.approx(
        {"short": 2 / (1 - b + b * 2 / average), "long": 2 / (1 - b + b * 6 / average)}
    )
    assert postings.counts(["pdf"], b, 0.0) == {"short": 1.0, "long": 2.0}  # no average: plain


def test_counts_add_extra_counts_then_saturate(postings: Postings) -> None:
    """Head counts join the body's before BM25's saturation ``tf / (tf + k1)``."""
    postings.add({"a": postings.count(b"pdf pdf"), "b": postings.count(b"forms")})
    extra = {"a": 1.0, "b": 3.0}
    assert postings.counts(["pdf"], extra=extra) == {"a": 3.0, "b": 3.0}
    assert postings.counts(["pdf"], extra=extra, k1=1.2) == pytest.approx(
        {"a": 3 / 4.2, "b": 3 / 4.2}
    )
    assert postings.counts(["nothing"], k1=1.2) == {}
    with pytest.raises(KeyError):
        postings.counts(["pdf"], extra={"unposted": 1.0})


def test_misuse_is_refused_and_changes_nothing(postings: Postings) -> None:
    postings.add({"a": postings.count(b"one two")})
    with pytest.raises(KeyError):
        postings.add({"a": postings.count(b"three")})
    with pytest.raises(KeyError):
        postings.remove("missing")
    other = type(postings)()
    with pytest.raises(ValueError, match="another Postings"):
        postings.add({"b": other.count(b"three")})
    with pytest.raises(ValueError, match="another Postings"):
        postings.word(other.count(b"three"), 0)
    with pytest.raises(IndexError):
        postings.word(postings.count(b"one"), 1)
    with pytest.raises(IndexError):
        postings.word(postings.count(b"one"), -1)
    assert len(postings) == 1
    assert postings.counts(["one", "three"]) == {"a": 1}


def test_a_misuse_in_one_add_posts_none_of_its_skills(postings: Postings) -> None:
    postings.add({"a": postings.count(b"one")})
    other = type(postings)()
    with pytest.raises(KeyError):
        postings.add({"b": postings.count(b"two"), "a": postings.count(b"two")})
    with pytest.raises(ValueError, match="another Postings"):
        postings.add({"b": postings.count(b"two"), "c": other.count(b"two")})
    assert len(postings) == 1
    assert postings.counts(["two"]) == {}


class OddItems(dict[str, object]):
    """A mapping whose items are not all (name, counts) pairs."""

    def __init__(self, items: list[object]) -> None:
        super().__init__()
        self.odd = items

    def items(self) -> list[object]:  # type: ignore[override]
        return self.odd


def test_a_mapping_naming_a_skill_twice_posts_none(postings: Postings) -> None:
    twice = OddItems([("a", postings.count(b"one")), ("a", postings.count(b"two"))])
    with pytest.raises(KeyError, match="named twice"):
        postings.add(twice)
    assert len(postings) == 0
    assert postings.counts(["one", "two"]) == {}
    postings.add({"a": postings.count(b"two")})  # the name is still free
    assert postings.counts(["one", "two"]) == {"a": 1}


def test_add_refuses_items_that_are_not_pairs(postings: Postings) -> None:
    counts = postings.count(b"one")
    for items in ([("a", counts), ("b",)], [("a", counts), 5], [("a", counts, 1)]):
        with pytest.raises((TypeError, ValueError)):
            postings.add(OddItems(items))
    assert len(postings) == 0


def test_bodies_counted_in_threads_while_skills_are_posted(postings: Postings) -> None:
    """Counting never depends on other skills: worker threads count while a search posts."""
    bodies = [f"body {i} shared Wörter a{i % 17} 日本{i % 5}".encode() for i in range(400)]
    counted: dict[str, WordCounts] = {}

    def count(part: int) -> None:
        for i in range(part, len(bodies), 4):
            counted[f"s{i}"] = postings.count(bodies[i])

    workers = [threading.Thread(target=count, args=(part,)) for part in range(4)]
    for worker in workers:
        worker.start()
    postings.add({"early": postings.count(b"shared a3")})
    for worker in workers:
        worker.join()
    postings.add(counted)
    assert len(postings) == 401
    holders = {f"s{i}": 1 for i in range(400) if i % 17 == 3}
    assert postings.counts(["a3"]) == {"early": 1, **holders}
    assert len(postings.counts(["shared"])) == 401


def test_the_twin_visits_only_the_shelves_holding_a_word() -> None:
    """A rare word's first query looks into one shelf's skills, not all 10,000."""
    postings = PythonPostings()
    body = b"Words every skill holds, about setup and steps. " * 40
    postings.add({f"s{i:05d}": postings.count(body + f" id{i}x.".encode()) for i in range(10_000)})
    for i in range(0, 10_000, 1_000):
        before = postings.visited
        assert postings.counts([f"id{i}x"]) == {f"s{i:05d}": 1}
        assert postings.visited - before <= 2 * 10_000 // SHELVES  # one shelf, with slack


@settings(max_examples=examples(200), deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=300))
def test_the_unicode_rule_cuts_ascii_as_adk_rust_does(text: str) -> None:
    """So English ranking is unchanged: ASCII text takes adk-rust's cut, which is the same."""
    assert words._cut(words.normal_text(text.encode())) == tokenize(text)
    assert search_tokens(text) == tokenize(text)
