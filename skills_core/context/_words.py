"""Words: how skills and requests are cut into tokens and terms, and bodies posted by word.

A token is a run of ASCII letters and digits, lowercased (adk-rust's rule: ``"Résumé"`` gives
``["r", "sum"]``). Ranked search matches on *terms*: tokens less stopwords, reduced to their
Snowball English stem; a body's words are kept as tokens and met through :func:`stem_forms`.

:class:`Postings` has two implementations held equal by ``tests/context/test_body_words.py``:
:data:`NATIVE`, the C extension, and :class:`PythonPostings` where it was not built
(docs/benchmarks.md, "Second routes kept").
"""

from __future__ import annotations

import itertools
import string
import threading
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

import snowballstemmer

_KEEP = frozenset((string.ascii_letters + string.digits).encode())
_TABLE = bytes(
    (code | 0x20 if chr(code).isalpha() else code) if code in _KEEP else 0x20 for code in range(256)
)
"""Maps ASCII letters to lowercase, digits to themselves, every other byte to a space."""

_STOPWORD_TEXT = """a about after all also an and any are as at be been before being but by
can could do does doing done for from get gets had has have how i if in into is it its just let
me more my need needs no not now of on one only or other our out over please should so some such
than that the their them then there these they this those through to too up us use used uses
using want was way we were what when where which while who why will with would you your"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Words too common to tell skills apart (ranked search only; adk-rust's scorer counts all)."""

_FRAGMENT_TEXT = """ll re ve don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn
haven hadn mustn needn shan"""
_FRAGMENTS = frozenset(_FRAGMENT_TEXT.split())
"""What remains of contractions once the apostrophe splits them ("don't": "don", "t")."""

_MAX_KNOWN_TOKENS = 1_000_000


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``, in order, repeats kept."""
    return tokenize_bytes(text.encode("utf-8", "surrogatepass"))


def tokenize_bytes(data: bytes) -> list[str]:
    """The tokens of UTF-8 ``data`` (a SKILL.md body as stored), in order, repeats kept."""
    return data.translate(_TABLE).decode("ascii").split()


class _Terms(dict[str, str]):
    """Token -> its search term, or ``""`` for a token search ignores (forgotten past a million)."""

    def __init__(self) -> None:
        super().__init__()
        self._stemmer = snowballstemmer.stemmer("english")
        self._lock = threading.Lock()  # the pure-Python stemmer keeps state while it works

    def __missing__(self, token: str) -> str:
        if (len(token) < 2 and token.isalpha()) or token in STOPWORDS or token in _FRAGMENTS:
            term = ""
        else:
            with self._lock:
                term = self._stemmer.stemWord(token)
        if len(self) >= _MAX_KNOWN_TOKENS:
            self.clear()
        self[token] = term
        return term


TERMS = _Terms()
"""Every token's search term: its Snowball English stem (``"forms"``, ``"forming"``:
``"form"``), or ``""`` for stopwords, one-letter tokens and contraction fragments (a
one-digit token stays: "task 5")."""


def search_terms(text: str) -> list[str]:
    """The terms ranked search matches on: stems of the tokens it does not ignore, in order."""
    return [term for term in map(TERMS.__getitem__, tokenize(text)) if term]


_SUFFIX_TEXT = """s es e ed ing ings er ers or ors y ies ied ly ion ions ation ations ate ated
ates ating ator ators ization izations ification ifications ment ments ement ements al als ally
ity ities ability abilities ibility ic ics ical ically ist ists ism ness ize izes ized izing
izer izers ise ised ising ive ively ives able ably ence ences ance ances ant ants ent ents ently
ency encies ous ously ful fully ility ilities ional itional ication ications ition itive ative
atively eering iately ial"""
_SUFFIXES = tuple(_SUFFIX_TEXT.split())
"""Endings English words take on a stem."""


def stem_forms(term: str) -> list[str]:
    """Words that may have ``term`` as their stem (``"queri"``: ``queries``, ``query``...)."""
    bases = [term]
    if term.endswith("e"):
        bases.append(term[:-1])  # write: writing
    if term.endswith("i"):
        bases.append(term[:-1] + "y")  # queri: query
    if term[-1] not in "aeiouy":
        bases.append(term + term[-1])  # plot: plotting
    return list(dict.fromkeys(base + suffix for base in bases for suffix in ("", *_SUFFIXES)))


class WordCounts(Protocol):
    """One body's distinct words and how often each occurs (``len()``: how many distinct)."""

    @property
    def length(self) -> int:
        """How many words the body holds, repeats counted."""

    def __len__(self) -> int: ...


class Postings(Protocol):
    """Skills' body words, by word (:meth:`count` may run in any thread)."""

    def count(self, data: bytes, /) -> WordCounts:
        """The words of one body's UTF-8 bytes (:func:`tokenize_bytes`' rule), counted."""

    def add(self, skills: Mapping[str, WordCounts], /) -> None:
        """Post each skill's counts (made by this instance), all or none.

        Raises ``KeyError`` for a name posted or given twice, ``ValueError`` for another
        instance's counts.
        """

    def remove(self, name: str, /) -> None:
        """Take a skill's counts off (``KeyError`` when it holds none)."""

    def held(self, words: Iterable[str], /) -> list[str]:
        """Those of ``words`` some posted skill holds (or held, in Python), in their order."""

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

        With an ``average`` length, BM25's length normalisation (``b``); ``extra`` is added to
        the sums; with ``k1``, BM25's saturation ``tf / (tf + k1)``.
        """

    def word(self, counts: WordCounts, at: int, /) -> str:
        """The ``at``-th distinct word of ``counts``, in order of first occurrence."""

    def __len__(self) -> int:
        """How many skills are posted."""


SHELVES = 32
"""Shelves of :class:`PythonPostings`: a word is looked for on the shelves holding it."""


class PythonWordCounts:
    """:class:`WordCounts` of the pure-Python twin: a ``Counter`` and the word count."""

    __slots__ = ("_order", "counts", "length", "owner")

    def __init__(self, counts: Counter[str], length: int, owner: int) -> None:
        self.counts = counts
        self.length = length
        self.owner = owner
        self._order: list[str] | None = None

    def __len__(self) -> int:
        return len(self.counts)

    def order(self) -> list[str]:
        """The distinct words in order of first occurrence (listed once, when first asked)."""
        if self._order is None:
            self._order = list(self.counts)
        return self._order


class PythonPostings:
    """:class:`Postings` in pure Python, for where the C extension was not built.

    Each skill sits on one of :data:`SHELVES` shelves; each shelf keeps the words its skills
    ever held.
    """

    def __init__(self) -> None:
        self._words: list[set[str]] = [set() for _ in range(SHELVES)]
        self._bodies: list[dict[str, Counter[str]]] = [{} for _ in range(SHELVES)]
        self._lengths: dict[str, int] = {}
        self._serial = next(_SERIALS)
        self.visited = 0
        """Skills whose counts :meth:`counts` looked into, in all: the cost a shelf saves."""

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
        for name in sorted(posted, key=_shelf):  # shelf by shelf: its words stay in the cache
            counts = posted[name]
            shelf = _shelf(name)
            self._words[shelf].update(counts.counts)
            self._bodies[shelf][name] = counts.counts
            self._lengths[name] = counts.length

    def remove(self, name: str, /) -> None:
        """See :meth:`Postings.remove`."""
        del self._lengths[name]
        del self._bodies[_shelf(name)][name]

    def held(self, words: Iterable[str], /) -> list[str]:
        """See :meth:`Postings.held`."""
        asked = list(words)
        found = self._held(asked)
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
            for name, count in self._holders(word).items():
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

    def _held(self, words: Collection[str]) -> set[str]:
        return set().union(*(shelf.intersection(words) for shelf in self._words))

    def _holders(self, word: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for words, bodies in zip(self._words, self._bodies, strict=True):
            if word in words:
                self.visited += len(bodies)
                for name, counts in bodies.items():
                    if word in counts:
                        found[name] = counts[word]
        return found

    def _own(self, counts: WordCounts) -> PythonWordCounts:
        if not isinstance(counts, PythonWordCounts):
            raise TypeError(f"expected PythonWordCounts, got {type(counts).__name__}")
        if counts.owner != self._serial:
            raise ValueError("these counts were made by another Postings")
        return counts


_SERIALS = itertools.count(1)


def _shelf(name: str) -> int:
    return hash(name) % SHELVES


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
