"""The console sessions' reading and comparing (tests/docs/examples.py), on small pages."""

from __future__ import annotations

import pytest
from sybil.example import SybilFailure
from sybil.testing import check_sybil

from tests.docs.examples import SYBIL, matches, session


def test_a_session_is_commands_each_with_its_output() -> None:
    assert session("$ a\none\ntwo\n$ b\n$ c\nthree\n") == [
        ("a", "one\ntwo\n"),
        ("b", ""),
        ("c", "three\n"),
    ]
    with pytest.raises(ValueError, match="starts with"):
        session("output before a command\n")


def test_output_matches_exactly_but_for_what_varies_and_elided_lines() -> None:
    assert matches("a\n…\nd\n", "a\nb\nc\nd\n")
    assert matches("a\n…\nd\n", "a\nd\n")
    assert not matches("a\n", "a\nb\n")
    assert not matches("a …\n", "a b\n")  # only a whole line elides
    assert matches("[14:02:11] at 127.0.0.1:8000\n", "[09:00:00] at 127.0.0.1:40613\n")
    assert not matches("at 127.0.0.2:8000\n", "at 127.0.0.2:40613\n")


def test_a_session_runs_in_bash_and_sees_exit_codes() -> None:
    check_sybil(SYBIL, "```console\n$ false\n$ echo $?\n1\n$ echo 'a b' >&2\na b\n```\n")


def test_a_session_that_prints_otherwise_fails_with_both_outputs() -> None:
    with pytest.raises(SybilFailure, match=r"(?s)the page shows:\nyes\n--- it printed:\nno\n"):
        check_sybil(SYBIL, "```console\n$ echo no\nyes\n```\n")
