"""RangedArchive: which ranged requests a read costs, and how spans are merged and batched."""

from __future__ import annotations

import asyncio
import random

import pytest

from backends._remote.bundles import (
    FALLBACK_BYTES,
    GAP_BYTES,
    WINDOW_BYTES,
    RangedArchive,
    merge_spans,
)

SIZE = 4 * WINDOW_BYTES
DATA = random.Random(1).randbytes(SIZE)


class Store:
    """An archive in memory that records every range asked of it."""

    def __init__(self) -> None:
        self.requests: list[tuple[int, int]] = []

    async def fetch(self, start: int, end: int) -> bytes:
        self.requests.append((start, end))
        return DATA[start:end]

    def archive(self, *, concurrency: int = 4) -> RangedArchive:
        known_start = SIZE - 1000
        return RangedArchive(
            SIZE,
            self.fetch,
            known=DATA[known_start:],
            known_start=known_start,
            concurrency=concurrency,
        )


def read_at(archive: RangedArchive, start: int, length: int) -> bytes:
    archive.seek(start)
    return archive.read(length)


async def test_reads_inside_fetched_spans_and_the_known_tail_cost_nothing_more() -> None:
    store = Store()
    archive = store.archive()
    async with archive.spans([(100, 200), (300, 400), (SIZE - 500, SIZE - 10)]):
        assert await asyncio.to_thread(read_at, archive, 120, 50) == DATA[120:170]
        assert await asyncio.to_thread(read_at, archive, 310, 90) == DATA[310:400]
        assert await asyncio.to_thread(read_at, archive, SIZE - 400, 400) == DATA[-400:]
    assert store.requests == [(100, 400)]  # merged; the tail was known already


async def test_a_read_outside_every_span_fetches_a_fallback_block_once() -> None:
    store = Store()
    archive = store.archive()
    async with archive.spans(()):
        assert await asyncio.to_thread(read_at, archive, 5000, 10) == DATA[5000:5010]
        assert await asyncio.to_thread(read_at, archive, 5010, 100) == DATA[5010:5110]
    assert store.requests == [(5000, 5000 + FALLBACK_BYTES)]


async def test_a_read_on_the_event_loop_is_refused() -> None:
    archive = Store().archive()
    async with archive.spans(()):
        with pytest.raises(RuntimeError, match="worker threads"):
            read_at(archive, 5000, 10)


def test_spans_merge_across_small_gaps_up_to_a_window() -> None:
    near = [(0, 10), (10 + GAP_BYTES, 20 + GAP_BYTES)]
    assert merge_spans(near) == [(0, 20 + GAP_BYTES)]
    far = [(0, 10), (11 + GAP_BYTES, 20 + GAP_BYTES)]
    assert merge_spans(far) == far
    chain = [(index * 1000, index * 1000 + 10) for index in range(WINDOW_BYTES // 1000 + 2)]
    merged = merge_spans(chain)
    assert len(merged) == 2
    assert all(end - start <= WINDOW_BYTES for start, end in merged)
    assert merge_spans([(0, 3 * WINDOW_BYTES), (5, 10)]) == [(0, 3 * WINDOW_BYTES)]


def test_batches_hold_at_most_concurrency_windows_in_archive_order() -> None:
    archive = Store().archive(concurrency=2)
    step = GAP_BYTES + 100  # every span its own window
    spans = [(index * step, index * step + 10) for index in (4, 0, 3, 1, 2)]
    assert list(archive.batches(spans)) == [[1, 3], [4, 2], [0]]
