"""The C postings when the garbage collector runs inside a call, or an allocation fails."""

from __future__ import annotations

import gc
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

import pytest

from skills_core.context._words import NATIVE

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


REFUSED = object()


def answer(call: Callable[[], object], failing: int) -> object:
    """``call()``'s answer with its ``failing``-th allocation refused; REFUSED on MemoryError."""
    testcapi = pytest.importorskip("_testcapi")
    testcapi.set_nomemory(failing, failing + 1)
    try:
        return call()
    except MemoryError:
        return REFUSED
    finally:
        testcapi.remove_mem_hooks()


def test_a_refused_allocation_while_the_vocabulary_grows_changes_nothing() -> None:
    """Each of a count's 81 allocations fails in turn, then the same count succeeds whole."""
    assert NATIVE is not None
    body = " ".join(f"v{i}" for i in range(3_000)).encode()  # past every first table size
    for failing in range(100):
        postings = NATIVE()
        answer(partial(postings.count, body), failing)
        made = postings.count(body)
        postings.add({"s": made})
        assert [postings.word(made, at) for at in (0, 2_999)] == ["v0", "v2999"]
        assert postings.counts(["v0", "v1500", "v2999"]) == {"s": 3.0}


def test_each_refused_allocation_raises_and_changes_nothing() -> None:
    """Every allocation of count, add, held and counts fails in turn: an answer is whole."""
    assert NATIVE is not None
    postings = NATIVE()
    long = "w" * 70  # past the 64 bytes a lookup copies on the stack
    body = " ".join([long, *(f"w{i}" for i in range(300))]).encode()  # past first table sizes
    postings.add({"s": postings.count(body)})
    posted = ["s"]
    for failing in range(40):  # each call makes under 30
        answer(partial(postings.count, body), failing)
        made = postings.count(body)
        assert (made.length, len(made)) == (301, 301)
        if answer(partial(postings.add, {f"s{failing}": made}), failing) is not REFUSED:
            posted.append(f"s{failing}")
        assert len(postings) == len(posted)
        held = answer(partial(postings.held, ["w1", long, "w300"]), failing)
        assert held in (REFUSED, ["w1", long])
        found = answer(partial(postings.counts, [long, "w299"]), failing)
        assert found in (REFUSED, dict.fromkeys(posted, 2.0))
    assert postings.counts([long]) == dict.fromkeys(posted, 1.0)


def test_a_skill_re_posted_again_and_again_keeps_memory_flat() -> None:
    """Serials of removed skills are numbered away, so a long-running index does not grow."""
    assert NATIVE is not None
    postings = NATIVE()
    postings.add({f"s{i}": postings.count(f"w{i} shared".encode()) for i in range(10)})

    def re_post(times: int) -> None:
        for _ in range(times):
            postings.remove("s0")
            postings.add({"s0": postings.count(b"w0 shared again")})

    re_post(500)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        re_post(20_000)  # 20,000 serials kept would be 480 KB of skill slots
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 20_000
    assert postings.counts(["shared"]) == {f"s{i}": 1.0 for i in range(10)}
    assert postings.counts(["again", "w0", "w1"]) == {"s0": 2.0, "s1": 1.0}
    assert postings.held(["w0", "w9", "w10"]) == ["w0", "w9"]


@pytest.mark.parametrize("body", ["plain words ", "Wörter 日本語の文 "])
def test_counting_a_body_lets_other_threads_run(body: str) -> None:
    """The cut runs without the GIL: a thread that never gets the GIL otherwise (switch
    interval 100 s) runs while a 24 MB body is counted, and only then."""
    assert NATIVE is not None
    postings, data = NATIVE(), (body * (24_000_000 // len(body.encode()))).encode()
    ticks: list[int] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0)  # gives the GIL back, so the counting thread takes it again at once

    interval = sys.getswitchinterval()
    sys.setswitchinterval(100)
    worker = threading.Thread(target=tick)
    try:
        worker.start()
        postings.count(b"warm up")
        before = len(ticks)
        counts = postings.count(data)
        during = len(ticks) - before
    finally:
        stop.set()
        sys.setswitchinterval(interval)
        worker.join()
    assert counts.length > 1_000_000
    assert during > 0
