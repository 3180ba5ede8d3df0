"""Body words, model-based: random call sequences give the C postings and the twin one answer."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from skills_core.context._words import (
    NATIVE,
    Postings,
    PythonPostings,
    WordCounts,
    body_tokens,
)
from tests.support.examples import examples

# Words of 1 to 17 bytes and past the 64 a lookup copies on the stack, split by ASCII and UTF-8.
PIECES = [b"pdf", b"PDF", b"Forms", b"a", b"42", b"x1", b"abcdefgh", b"ABCDEFGHI"]
PIECES += [b"abcdefghijklmnop", b"abcdefghijklmnopq", b"w" * 70, "Résumé".encode()]
PIECES += [b" ", b" ", b"-", b"\n\t", b"_", b"\xff", "é".encode()]
ASKED = ["pdf", "forms", "a", "42", "x1", "abcdefgh", "abcdefghi", "abcdefghijklmnop"]
ASKED += ["abcdefghijklmnopq", "w" * 70, "w" * 71, "r", "sum", "PDF", "café", "", "a b"]
NAMES = ["s1", "s2", "s3", "s4", "s5"]

numbers = st.integers(0, 3) | st.floats(0, 5)
bodies = st.lists(st.sampled_from(PIECES) | st.binary(max_size=4), max_size=12).map(b"".join)


class TwinsAgree(RuleBasedStateMachine):
    """Each rule calls both implementations and checks their answers against a plain model."""

    counted = Bundle("counted")

    def __init__(self) -> None:
        super().__init__()
        assert NATIVE is not None
        self.native: Postings = NATIVE()
        self.twin = PythonPostings()
        self.live: dict[str, Counter[str]] = {}  # name -> its body's word counts
        self.ever: set[str] = set()  # every word a skill posted so far held

    @rule(target=counted, data=bodies)
    def count(self, data: bytes) -> tuple[WordCounts, WordCounts, Counter[str]]:
        native, twin = self.native.count(data), self.twin.count(data)
        expected = Counter(body_tokens(data))
        assert native.length == twin.length == expected.total()
        assert len(native) == len(twin) == len(expected)
        words = [self.native.word(native, at) for at in range(len(native))]
        assert words == [self.twin.word(twin, at) for at in range(len(twin))] == list(expected)
        return native, twin, expected

    @rule(skills=st.dictionaries(st.sampled_from(NAMES), counted, max_size=3))
    def add(self, skills: dict[str, tuple[WordCounts, WordCounts, Counter[str]]]) -> None:
        if skills.keys() & self.live.keys():
            for postings, side in ((self.native, 0), (self.twin, 1)):
                with pytest.raises(KeyError):
                    postings.add({name: made[side] for name, made in skills.items()})
            return
        self.native.add({name: made[0] for name, made in skills.items()})
        self.twin.add({name: made[1] for name, made in skills.items()})
        for name, made in skills.items():
            self.live[name] = made[2]
            self.ever.update(made[2])

    @rule(name=st.sampled_from(NAMES))
    def remove(self, name: str) -> None:
        if name not in self.live:
            for postings in (self.native, self.twin):
                with pytest.raises(KeyError):
                    postings.remove(name)
            return
        self.native.remove(name)
        self.twin.remove(name)
        del self.live[name]

    @rule(words=st.lists(st.sampled_from(ASKED), max_size=6))
    def held(self, words: list[str]) -> None:
        """The twin may also name words only removed skills held: exactly those, no others."""
        live = set().union(*self.live.values())
        assert self.native.held(words) == [word for word in words if word in live]
        assert self.twin.held(words) == [word for word in words if word in self.ever]

    @rule(
        words=st.lists(st.sampled_from(ASKED), max_size=6),
        b=st.sampled_from([0.0, 0.75, 1.0]),
        average=st.sampled_from([0.0, -1.0, 0.5, 3.0, 40.0]),
        extra=st.none()
        | st.dictionaries(st.sampled_from(NAMES), st.integers(0, 3) | st.floats(0, 5)),
        k1=st.sampled_from([0.0, 1.2]),
    )
    def counts(
        self, words: list[str], b: float, average: float, extra: dict[str, float] | None, k1: float
    ) -> None:
        asked = {"b": b, "average": average, "extra": extra, "k1": k1}
        if extra is not None and not extra.keys() <= self.live.keys():
            for postings in (self.native, self.twin):
                with pytest.raises(KeyError):
                    postings.counts(words, **asked)
            return
        sums: dict[str, float] = {}
        for word in words:
            for name, counts in self.live.items():
                if word in counts:
                    length = counts.total()
                    weight = 1 / (1 - b + b * length / average) if average > 0 else 1.0
                    sums[name] = sums.get(name, 0.0) + counts[word] * weight
        for name, value in (extra or {}).items():
            sums[name] = sums.get(name, 0.0) + value
        expected = {name: tf / (tf + k1) if k1 > 0 else tf for name, tf in sums.items()}
        assert self.native.counts(words, **asked) == pytest.approx(expected)
        assert self.twin.counts(words, **asked) == pytest.approx(expected)

    @rule(made=counted, at=st.integers(0, 4))
    def word(self, made: tuple[WordCounts, WordCounts, Counter[str]], at: int) -> None:
        if at >= len(made[2]):
            for postings, side in ((self.native, 0), (self.twin, 1)):
                with pytest.raises(IndexError):
                    postings.word(made[side], at)
            return
        assert self.native.word(made[0], at) == self.twin.word(made[1], at) == list(made[2])[at]

    @invariant()
    def same_skills(self) -> None:
        assert len(self.native) == len(self.twin) == len(self.live)


TwinsAgree.TestCase.settings = settings(
    max_examples=examples(150), stateful_step_count=25, deadline=None
)
test_twins_agree = pytest.mark.skipif(NATIVE is None, reason="the extension is not built")(
    TwinsAgree.TestCase
)


def test_thousands_of_re_posts_give_the_twins_one_answer() -> None:
    """Past the spare serials, the C postings number their skills again: answers stay equal."""
    assert NATIVE is not None
    rng = random.Random(3)
    vocabulary = [f"w{i}" for i in range(40)]
    native, twin = NATIVE(), PythonPostings()
    posted: set[str] = set()
    for step in range(3_000):
        name = f"s{rng.randrange(30)}"
        body = " ".join(rng.choices(vocabulary, k=rng.randrange(1, 8))).encode()
        for postings in (native, twin):
            if name in posted:
                postings.remove(name)
            postings.add({name: postings.count(body)})
        posted.add(name)
        if step % 500 == 0 or step == 2_999:
            assert len(native) == len(twin) == len(posted)
            for word in vocabulary:
                assert native.counts([word], 0.75, 3.0) == pytest.approx(
                    twin.counts([word], 0.75, 3.0)
                )
