"""Words of skills and queries, as adk-rust's selector cuts them, plus what ranked search adds.

A token is a run of ASCII letters and digits, lowercased; every other character (spaces,
punctuation, any non-ASCII character) separates tokens. ``"Résumé PDF-forms"`` gives
``["r", "sum", "pdf", "forms"]``, exactly as the Rust ``adk-skill`` crate does.

The cut runs on bytes with one translation table: UTF-8 encodes every non-ASCII character as
bytes of 0x80 and above, which all map to a separator, so the result equals a character-wise
scan at C speed (about 100 ns a token, most of it building the token strings).
"""

from __future__ import annotations

import string

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


_ES_PLURALS = ("sses", "xes", "ches", "shes", "zzes")


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``, in order, repeats kept."""
    return tokenize_bytes(text.encode("utf-8", "surrogatepass"))


def tokenize_bytes(data: bytes) -> list[str]:
    """The tokens of UTF-8 ``data`` (a SKILL.md body as stored), in order, repeats kept."""
    return data.translate(_TABLE).decode("ascii").split()


def stem(token: str) -> str:
    """A plural folded to its singular, so "forms" finds "form" and "queries" "query".

    ``-ies`` becomes ``-y``; ``-sses``, ``-xes``, ``-ches``, ``-shes`` and ``-zzes`` lose
    ``es``; any other final ``s`` goes, except in ``-ss``, ``-us`` and ``-is`` words.
    """
    if len(token) < 4 or token[-1] != "s" or token[-2] in "siu":
        return token
    if token.endswith("ies"):
        return token[:-3] + "y"
    if token.endswith(_ES_PLURALS):
        return token[:-2]
    return token[:-1]


def search_terms(text: str) -> list[str]:
    """The terms ranked search matches on: tokens without stopwords, plurals folded."""
    return terms_of(tokenize(text))


def terms_of(tokens: list[str]) -> list[str]:
    """``tokens`` without stopwords, plurals folded."""
    return [stem(token) for token in tokens if token not in STOPWORDS]
