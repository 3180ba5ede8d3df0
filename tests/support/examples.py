"""How many examples property tests try: moderate by default, more for a nightly run.

``SKILLFS_EXAMPLES=10`` multiplies every property test's example count by ten (the nightly
profile); the default keeps the whole suite fast on a 2-core machine.
"""

from __future__ import annotations

import os

SCALE = float(os.environ.get("SKILLFS_EXAMPLES", "1"))


def examples(default: int) -> int:
    """``default`` examples, scaled by ``SKILLFS_EXAMPLES`` (at least one)."""
    return max(1, round(default * SCALE))
