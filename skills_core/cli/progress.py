"""A one-line progress bar for terminals: ``[#########                     ] 120/400 skills``.

Long work draws one on stderr when stderr is a terminal: ``validate`` and ``lock`` as
SKILL.md files are read and skills checked or hashed, ``bundle`` and ``publish`` as skills are
packed; nothing when stderr is piped or redirected, or with ``--quiet``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

WIDTH = 30
"""Cells in the bar."""

INTERVAL = 0.1
"""Seconds between redraws; the last step is always drawn."""


class ProgressBar:
    """A bar redrawn in place (after a carriage return) as ``done`` goes up to ``total``.

    Call it with ``(done, total)``, as :func:`skills_core.bundle.writer.write_bundle` calls its
    ``progress``; :meth:`close` ends the line once anything was drawn.

    Args:
        stream: Where to draw it, a terminal.
        noun: What is counted.
    """

    def __init__(self, stream: TextIO, *, noun: str = "skills") -> None:
        self._stream = stream
        self._noun = noun
        self._drawn_at: float | None = None

    def __call__(self, done: int, total: int) -> None:
        """Redraw the bar, unless it was drawn less than :data:`INTERVAL` ago and is not full."""
        now = time.monotonic()
        if done < total and self._drawn_at is not None and now - self._drawn_at < INTERVAL:
            return
        self._drawn_at = now
        filled = WIDTH * done // total if total else WIDTH
        self._stream.write(f"\r[{'#' * filled:<{WIDTH}}] {done}/{total} {self._noun}")
        self._stream.flush()

    def close(self) -> None:
        """End the bar's line, so what is printed next starts on its own line."""
        if self._drawn_at is not None:
            self._stream.write("\n")
            self._stream.flush()
            self._drawn_at = None


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``-q/--quiet``: no progress bar, even on a terminal."""
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="draw no progress bar on a terminal"
    )


@contextmanager
def progress_bar(
    stream: TextIO, *, noun: str = "skills", quiet: bool = False
) -> Iterator[ProgressBar | None]:
    """A :class:`ProgressBar` on ``stream`` when it is a terminal, else ``None``.

    The bar's line is ended on exit, also when the work fails or is interrupted.

    Args:
        stream: Where to draw it.
        noun: What is counted.
        quiet: Draw nothing (``--quiet``).
    """
    if quiet or not stream.isatty():
        yield None
        return
    bar = ProgressBar(stream, noun=noun)
    try:
        yield bar
    finally:
        bar.close()
