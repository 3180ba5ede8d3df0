"""The C postings when the garbage collector runs inside a call."""

from __future__ import annotations

import gc

import pytest

from skills_core.context.body_words import NATIVE

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the extension is not built")


def test_a_finalizer_removing_a_skill_while_counts_sums_is_safe() -> None:
    """On Python 3.11 a new container may start a collection, whose finalizers run any code."""
    assert NATIVE is not None
    postings = NATIVE()
    postings.add({"a": postings.count(b"pdf")})

    class Remover:
        def __del__(self) -> None:
            postings.remove("b")

    threshold, enabled = gc.get_threshold(), gc.isenabled()
    for later in range(3):  # the collection starts at the 1st, 2nd or 3rd new container
        postings.add({"b": postings.count(b"pdf")})
        gc.disable()
        try:
            garbage = Remover()
            garbage.cycle = garbage  # type: ignore[attr-defined]
            del garbage
            held = [{} for _ in range(100)]  # no dict left to reuse: the next one is new
            gc.set_threshold(gc.get_count()[0] + later)
            gc.enable()
            found = postings.counts(["pdf"])
        finally:
            gc.set_threshold(*threshold)
            (gc.enable if enabled else gc.disable)()
        gc.collect()
        del held
        assert found in ({"a": 1.0}, {"a": 1.0, "b": 1.0})
        assert postings.counts(["pdf"]) == {"a": 1.0}
