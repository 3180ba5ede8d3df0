"""Words of skills and queries, as adk-rust's selector cuts them, plus what ranked search adds.

A token is a run of ASCII letters and digits, lowercased; every other character (spaces,
punctuation, any non-ASCII character) separates tokens. ``"Résumé PDF-forms"`` gives
``["r", "sum", "pdf", "forms"]``, exactly as the Rust ``adk-skill`` crate does.

The cut runs on bytes with one translation table: UTF-8 encodes every non-ASCII character as
bytes of 0x80 and above, which all map to a separator, so the result equals a character-wise
scan at C speed (about 100 ns a token, most of it building the token strings).

Ranked search matches on *terms*: tokens less stopwords, one-letter tokens and the fragments
contractions leave, reduced to their Snowball English stem (the ``snowballstemmer`` package,
which uses PyStemmer's C code when that is installed). A skill's body is indexed as its plain
tokens, at C speed; a request's term finds the body words that share its stem among the
term with common endings (:func:`stem_forms`), so only a request's words and
the few body words they meet are ever stemmed.
"""

from __future__ import annotations

import string
import threading

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
"""Words too common in skills and requests to tell one skill from another (ranked search only;
the adk-rust scorer counts every word)."""


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``, in order, repeats kept."""
    return tokenize_bytes(text.encode("utf-8", "surrogatepass"))


def tokenize_bytes(data: bytes) -> list[str]:
    """The tokens of UTF-8 ``data`` (a SKILL.md body as stored), in order, repeats kept."""
    return data.translate(_TABLE).decode("ascii").split()


_FRAGMENT_TEXT = """ll re ve don doesn didn isn aren wasn weren won wouldn shouldn couldn hasn
haven hadn mustn needn shan"""
_FRAGMENTS = frozenset(_FRAGMENT_TEXT.split())
"""What remains of contractions once the apostrophe splits them ("don't" gives "don", "t")."""

_MAX_KNOWN_TOKENS = 1_000_000


class _Terms(dict[str, str]):
    """Token -> its search term, or ``""`` for a token search ignores; filled on first sight.

    A long-running process that meets over a million distinct tokens starts over.
    """

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
"""Every token's search term: Snowball's English stem (``"forms"`` and ``"forming"`` give
``"form"``, ``"queries"`` gives ``"queri"``), or ``""`` for stopwords, one-letter tokens and
contraction fragments (a one-digit token stays: "task 5")."""


def search_terms(text: str) -> list[str]:
    """The terms ranked search matches on: stems of the tokens it does not ignore, in order."""
    return [term for term in map(TERMS.__getitem__, tokenize(text)) if term]


_SUFFIX_TEXT = """s es e ed ing ings er ers or ors y ies ied ly ion ions ation ations ate ated
ates ating ator ators ization izations ification ifications ment ments ement ements
al als ally ity ities
ability abilities ibility ic ics ical ically ist ists ism ness ize izes ized izing izer izers
ise ised ising ive ively ives able ably ence ences ance ances ant ants ent ents ently ency
encies ous ously ful fully ility ilities ional itional ication ications ition itive ative
atively eering iately ial"""
_SUFFIXES = tuple(_SUFFIX_TEXT.split())
"""Endings English words take on a stem (with "" for the stem itself)."""


def stem_forms(term: str) -> list[str]:
    """Words that may have ``term`` as their stem: ``term`` with common endings.

    ``"deploy"`` gives ``deploy``, ``deploys``, ``deployment``..., ``"queri"`` gives
    ``queries`` and ``query``; callers keep those some skill holds and whose stem is ``term``.
    """
    bases = [term]
    if term.endswith("e"):
        bases.append(term[:-1])  # write: writing
    if term.endswith("i"):
        bases.append(term[:-1] + "y")  # queri: query
    if term[-1] not in "aeiouy":
        bases.append(term + term[-1])  # plot: plotting
    return list(dict.fromkeys(base + suffix for base in bases for suffix in ("", *_SUFFIXES)))
