"""CPU-time medians: the figure every benchmark here compares, steady on a loaded machine."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable


def cpu_median(run: Callable[[], object], runs: int) -> float:
    """Median CPU seconds of ``runs`` calls of ``run``."""
    samples = []
    for _ in range(runs):
        started = time.process_time()
        run()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def machine() -> str:
    """Python's version, the CPUs and the load average: what a figure was measured on."""
    return (
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
