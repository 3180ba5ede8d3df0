"""Words: how skills and requests are cut into tokens and terms, and bodies posted by word.

Two cuts: adk-rust's (:func:`tokenize`: runs of ASCII letters and digits, lowercased) and ranked
search's, for every language and the same on ASCII text (:func:`search_tokens`; docs/
choosing-skills.md, "Every language"). Ranked search matches on *terms*: stems of tokens.
:class:`Postings` has two implementations held equal by ``tests/context/test_body_words.py``:
:data:`NATIVE`, the C extension, and :class:`PythonPostings` where it was not built
(docs/benchmarks.md, "Second routes kept").
"""

from __future__ import annotations

import itertools
import logging
import platform
import re
import sys
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from functools import cache
from typing import Protocol

import snowballstemmer

_TABLE = bytes(
    ord(char.lower()) if char.isascii() and char.isalnum() else 0x20
    for char in map(chr, range(256))
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
    """adk-rust's tokens of ``text``, in order, repeats kept."""
    return tokenize_bytes(text.encode("utf-8", "surrogatepass"))


def tokenize_bytes(data: bytes) -> list[str]:
    """adk-rust's tokens of UTF-8 ``data`` (a SKILL.md body as stored), in order."""
    return data.translate(_TABLE).decode("ascii").split()


SPACELESS = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3005, 0x3007),  # iteration marks, ideographic zero
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x323AF),  # CJK extensions B-H
)
"""Code points of scripts written without spaces (Hangul too: docs/choosing-skills.md tells why)."""

SEPARATOR, LETTER, MARK, SPACELESS_LETTER = 1, 2, 3, 4
CLASSES = bytearray(sys.maxunicode + 1)
"""Each code point's class (0: not met yet), read by both cutters, filled by :func:`normal_text`."""
CLASSES[:128] = bytes(LETTER if chr(code).isalnum() else SEPARATOR for code in range(128))


def _class(char: str) -> int:
    category = unicodedata.category(char)[0]
    if category == "M":
        return MARK
    if category not in "LN":
        return SEPARATOR
    code = ord(char)
    return SPACELESS_LETTER if any(low <= code <= high for low, high in SPACELESS) else LETTER


def normal_text(data: bytes) -> str:
    """UTF-8 ``data`` NFKC-normalised and casefolded, its characters' classes in :data:`CLASSES`.

    Casefolding can undo NFKC ("ǰ"), hence NFKC again. The C extension calls this on a
    body's words that hold other characters than ASCII, joined by line feeds.
    """
    normal = unicodedata.normalize
    text = normal("NFKC", normal("NFKC", data.decode("utf-8", "replace")).casefold())
    for char in set(text):
        if not CLASSES[ord(char)]:
            CLASSES[ord(char)] = _class(char)
    return text


def search_tokens(text: str) -> list[str]:
    """Ranked search's tokens of ``text``: :func:`body_tokens` of its UTF-8, in order."""
    return body_tokens(text.encode("utf-8", "surrogatepass"))


_WORD_BYTES = re.compile(rb"[A-Za-z0-9\x80-\xff]+")


def body_tokens(data: bytes) -> list[str]:
    """Ranked search's tokens of UTF-8 ``data``, in order.

    As the C extension does, only the words holding bytes past ASCII are normalised (all in
    one call), which gives the tokens of the whole text normalised (tested).
    """
    if data.isascii():
        return tokenize_bytes(data)
    words = _WORD_BYTES.findall(data)
    normal = iter(normal_text(b"\n".join(word for word in words if not word.isascii())).split("\n"))
    tokens: list[str] = []
    for word in words:
        if word.isascii():
            tokens.append(word.decode().lower())
        else:
            tokens += _cut(next(normal))
    return tokens


def _cut(text: str) -> list[str]:
    """The tokens of normalised ``text``; the C extension cuts as this does (a tested rule)."""
    tokens: list[str] = []
    classes = [CLASSES[ord(char)] for char in text] + [SEPARATOR]
    at, end = 0, len(text)
    while at < end:
        kind = classes[at]
        start = at
        at += 1
        if kind == LETTER:
            while classes[at] == LETTER or classes[at] == MARK:
                at += 1
            tokens.append(text[start:at])
        elif kind == SPACELESS_LETTER:
            while classes[at] == MARK:
                at += 1
            if classes[at] != SPACELESS_LETTER:
                tokens.append(text[start:at])  # a lone letter
            while classes[at] == SPACELESS_LETTER:
                unit = at
                at += 1
                while classes[at] == MARK:
                    at += 1
                tokens.append(text[start:at])  # a bigram: the previous unit and this one
                start = unit
    return tokens


LANGUAGES = {
    "ar": "arabic", "hy": "armenian", "eu": "basque", "ca": "catalan", "cs": "czech",
    "da": "danish", "nl": "dutch", "en": "english", "eo": "esperanto", "et": "estonian",
    "fi": "finnish", "fr": "french", "de": "german", "el": "greek", "hi": "hindi",
    "hu": "hungarian", "id": "indonesian", "ga": "irish", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "no": "norwegian", "nb": "norwegian", "fa": "persian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "st": "sesotho",
    "es": "spanish", "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
"""ISO 639-1 codes of the languages Snowball stems, and their stemmers' names."""

ENGLISH = "english"


def skill_language(metadata: Mapping[str, str]) -> str:
    """The Snowball stemmer named by a skill's ``metadata.language``, English by default.

    The value is an ISO 639-1 code; a region (``de-AT``) is ignored, a code Snowball has no
    stemmer for (``ja``) gives English.
    """
    code = metadata.get("language", "").strip().lower().replace("_", "-").split("-")[0]
    return LANGUAGES.get(code, ENGLISH)


class _Terms(dict[str, str]):
    """Token -> its search term, or ``""`` for a token search ignores (forgotten past a million)."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self._stemmer = snowballstemmer.stemmer(language)  # PyStemmer's C where installed
        self._lock = threading.Lock()  # either stemmer keeps state while it works

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


@cache
def terms(language: str = ENGLISH) -> dict[str, str]:
    """Every token's search term in ``language`` (a Snowball stemmer's name).

    A term is the token's stem (``"forms"``, ``"forming"``: ``"form"``), or ``""`` for
    stopwords, one-letter tokens and contraction fragments (a one-digit token stays: "task 5").
    """
    return _Terms(language)


TERMS = terms(ENGLISH)
"""Every token's English search term."""


def search_terms(text: str, language: str = ENGLISH) -> list[str]:
    """The terms ranked search matches on: stems of the tokens it does not ignore, in order."""
    return [term for term in map(terms(language).__getitem__, search_tokens(text)) if term]


class Languages:
    """The languages of an index's skills, and the body words their stems stand for.

    An English term meets a body's words through :func:`stem_forms`; a term of another
    language meets the words of that language's skills whose stem it is, listed here.
    """

    def __init__(self) -> None:
        self._skills: Counter[str] = Counter()
        self._forms: dict[str, Counter[str]] = {}  # term -> {body word: skills holding it}

    def add(self, language: str, words: Iterable[str]) -> None:
        """Count a skill of ``language`` whose body holds ``words`` (distinct)."""
        self._skills[language] += 1
        for term, word in self._stemmed(language, words):
            self._forms.setdefault(term, Counter())[word] += 1

    def remove(self, language: str, words: Iterable[str]) -> None:
        """Take off a skill :meth:`add` counted, with the same words."""
        self._skills[language] -= 1
        if not self._skills[language]:
            del self._skills[language]
        for term, word in self._stemmed(language, words):
            forms = self._forms[term]
            forms[word] -= 1
            if not forms[word]:
                del forms[word]
                if not forms:
                    del self._forms[term]

    def forms(self, term: str) -> Collection[str]:
        """The body words of skills not in English whose stem is ``term``."""
        return self._forms.get(term, ())

    def query_terms(self, text: str, held: Callable[[str], Collection[str]]) -> list[str]:
        """A request's terms: each token stemmed in each language of the skills.

        English when there are none; where a token's stems differ, those some skill holds
        (``held(term)``: the skills holding it), or the first when none does.
        """
        languages = sorted(self._skills) or [ENGLISH]
        if len(languages) == 1:
            return search_terms(text, languages[0])
        found: list[str] = []
        for token in search_tokens(text):
            stems = list(dict.fromkeys(terms(language)[token] for language in languages))
            if len(stems) > 1:
                stems = [stem for stem in stems if held(stem)] or stems[:1]
            found += filter(None, stems)
        return found

    @staticmethod
    def _stemmed(language: str, words: Iterable[str]) -> Iterable[tuple[str, str]]:
        if language == ENGLISH:
            return ()
        stems = terms(language)
        return ((stems[word], word) for word in words if stems[word])


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
        """The words of one body's UTF-8 bytes (:func:`body_tokens`' rule), counted."""

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
"""Shelves of :class:`PythonPostings`, each keeping the words its skills ever held: a word is
looked for on the shelves holding it."""


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
    """:class:`Postings` in pure Python, for where the C extension was not built."""

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
        words = body_tokens(bytes(data))
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
        found = set().union(*(shelf.intersection(asked) for shelf in self._words))
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


NATIVE: type[Postings] | None
"""The C implementation, or ``None`` where the extension was not built."""
try:
    from skills_core.context._body_words import Postings as NATIVE
except ImportError:  # not built: no C compiler where it was installed
    NATIVE = None

EXPECTED_NATIVE = (
    sys.implementation.name == "cpython"
    and (sys.platform.startswith("linux") or sys.platform == "darwin")
    and platform.machine().lower() in {"x86_64", "amd64", "arm64", "aarch64"}
)  # where the C extension should build

_logger = logging.getLogger(__name__)


def new_postings() -> Postings:
    """Empty postings: the C implementation where it was built, else :class:`PythonPostings`."""
    if NATIVE is not None:
        return NATIVE()
    if EXPECTED_NATIVE:
        _warn_twin()
    return PythonPostings()


@cache
def _warn_twin() -> None:
    _logger.warning(
        "skills_core.context._body_words is not built: ranked search runs on its pure-Python "
        "twin, about 3x slower to index (install a C compiler, then reinstall agent-skillfs)"
    )
