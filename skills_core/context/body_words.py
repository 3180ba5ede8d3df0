"""Skills' body words: each body cut and counted once, and which skills hold each word.

Ranked search (:mod:`skills_core.context.search`) needs, for each word a query uses, the
skills holding it and how often. A :class:`Postings` keeps that: :meth:`~Postings.count` cuts
one SKILL.md body into tokens (:func:`~skills_core.context.tokens.tokenize_bytes`'s rule) and
counts them (the counts never depend on other skills, so any thread may count a body while
another searches); :meth:`~Postings.add` posts skills' counts, :meth:`~Postings.remove` takes
one skill's off; :meth:`~Postings.held` tells which words some skill holds and
:meth:`~Postings.counts` how often each skill holds any of them.

Two implementations keep this one contract (``tests/context/test_body_words.py`` runs both):

- :data:`NATIVE`, the C extension ``skills_core.context._body_words``, which ``pip install``
  builds where a C compiler is found. It keeps every distinct word once, as bytes under a
  number, and makes no Python object per word occurrence or per (skill, word) pair: counting
  and posting 10,000 real-sized skills (174 MB, 24 million words) takes about 1.2 s of CPU.
  A word, once met, stays in its postings' vocabulary (its bytes and about 100 more) while the
  postings live: a long-running process re-indexing changed skills grows by new words alone
  (removed skills' numbers are given out again once they outnumber the posted skills').
- :class:`PythonPostings`, used where the extension was not built: ``Counter`` per body and
  the shelves of :mod:`skills_core.context.shelves`, about 4 s for the same skills.

:func:`new_postings` gives the native one when it was built.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Protocol

from skills_core.context.shelves import BodyShelves
from skills_core.context.tokens import tokenize_bytes


class WordCounts(Protocol):
    """One body's distinct words and how often each occurs, made by :meth:`Postings.count`.

    ``len()`` is how many distinct words the body holds.
    """

    @property
    def length(self) -> int:
        """How many words the body holds, repeats counted."""

    def __len__(self) -> int: ...


class Postings(Protocol):
    """Skills' body words, by word."""

    def count(self, data: bytes, /) -> WordCounts:
        """The words of one body's UTF-8 bytes, counted; nothing is posted."""

    def add(self, skills: Mapping[str, WordCounts], /) -> None:
        """Post each skill's counts (made by this same instance) under its name.

        A name posted already or named twice by ``skills`` (``KeyError``), or counts of
        another instance (``ValueError``), refuse the whole call: nothing is posted.
        """

    def remove(self, name: str, /) -> None:
        """Take a skill's counts off (``KeyError`` when it holds none)."""

    def held(self, words: Iterable[str], /) -> list[str]:
        """Those of ``words`` some posted skill holds, in their order.

        The pure-Python twin may also name a word only removed skills held.
        """

    def counts(
        self,
        words: Iterable[str],
        /,
        b: float = 0.0,
        average: float = 0.0,
        *,
        extra: dict[str, float] | None = None,
        k1: float = 0.0,
    ) -> dict[str, float]:
        """``{skill: how often its body holds any of words}`` for every skill holding one.

        With an ``average`` body length, each occurrence weighs ``1 / (1 - b + b * length /
        average)`` by its body's length: BM25's length normalisation. ``extra`` (``{skill:
        count}`` of posted skills) is added to the sums, and with ``k1`` each sum ``tf``
        becomes ``tf / (tf + k1)``: BM25's saturation, between 0 and 1.
        """

    def word(self, counts: WordCounts, at: int, /) -> str:
        """The ``at``-th distinct word of ``counts``, in order of first occurrence."""

    def __len__(self) -> int:
        """How many skills are posted."""


class PythonWordCounts:
    """:class:`WordCounts` of the pure-Python twin: a ``Counter`` and the word count."""

    __slots__ = ("_order", "counts", "length", "owner")

    def __init__(self, counts: Counter[str], length: int, owner: int) -> None:
        self.counts = counts
        self.length = length
        self.owner = owner
        """The serial of the :class:`PythonPostings` that made these counts."""
        self._order: list[str] | None = None

    def __len__(self) -> int:
        return len(self.counts)

    def order(self) -> list[str]:
        """The distinct words in order of first occurrence (listed once, when first asked)."""
        if self._order is None:
            self._order = list(self.counts)
        return self._order


class PythonPostings:
    """:class:`Postings` in pure Python, for where the C extension was not built."""

    def __init__(self) -> None:
        self._shelves = BodyShelves()
        self._lengths: dict[str, int] = {}
        self._serial = next(_SERIALS)

    def __len__(self) -> int:
        return len(self._lengths)

    def count(self, data: bytes, /) -> PythonWordCounts:
        """See :meth:`Postings.count`."""
        words = tokenize_bytes(bytes(data))
        return PythonWordCounts(Counter(words), len(words), self._serial)

    def add(self, skills: Mapping[str, WordCounts], /) -> None:
        """See :meth:`Postings.add`."""
        posted: dict[str, PythonWordCounts] = {}
        for name, counts in skills.items():  # every item checked before any is posted
            own = self._own(counts)
            if name in posted or name in self._lengths:
                raise KeyError(f"{name!r} is {'named twice' if name in posted else 'held already'}")
            posted[name] = own
        self._shelves.add({name: counts.counts for name, counts in posted.items()})
        self._lengths.update((name, counts.length) for name, counts in posted.items())

    def remove(self, name: str, /) -> None:
        """See :meth:`Postings.remove`."""
        del self._lengths[name]
        self._shelves.remove(name)

    def held(self, words: Iterable[str], /) -> list[str]:
        """See :meth:`Postings.held`."""
        asked = list(words)
        found = self._shelves.held(asked)
        return [word for word in asked if word in found]

    def counts(
        self,
        words: Iterable[str],
        /,
        b: float = 0.0,
        average: float = 0.0,
        *,
        extra: dict[str, float] | None = None,
        k1: float = 0.0,
    ) -> dict[str, float]:
        """See :meth:`Postings.counts`."""
        lengths = self._lengths
        found: dict[str, float] = {}
        for word in words:
            for name, count in self._shelves.counts(word).items():
                weight = 1.0 / (1.0 - b + b * lengths[name] / average) if average > 0 else 1.0
                found[name] = found.get(name, 0.0) + count * weight
        for name, value in (extra or {}).items():
            if name not in lengths:
                raise KeyError(f"{name!r} is not posted")
            found[name] = found.get(name, 0.0) + value
        if k1 > 0:
            return {name: tf / (tf + k1) for name, tf in found.items()}
        return found

    def word(self, counts: WordCounts, at: int, /) -> str:
        """See :meth:`Postings.word`."""
        if at < 0:
            raise IndexError("word index out of range")
        return self._own(counts).order()[at]

    def _own(self, counts: WordCounts) -> PythonWordCounts:
        if not isinstance(counts, PythonWordCounts):
            raise TypeError(f"expected PythonWordCounts, got {type(counts).__name__}")
        if counts.owner != self._serial:
            raise ValueError("these counts were made by another Postings")
        return counts


_SERIALS = itertools.count(1)


def _native() -> type[Postings] | None:
    try:
        from skills_core.context._body_words import Postings as Native
    except ImportError:  # not built: no C compiler where it was installed
        return None
    return Native


NATIVE: type[Postings] | None = _native()
"""The C implementation, or ``None`` where the extension was not built."""


def new_postings() -> Postings:
    """Empty postings: the C implementation where it was built, else :class:`PythonPostings`."""
    return NATIVE() if NATIVE is not None else PythonPostings()
