"""The Python code blocks of the user pages, and a runner that executes one page's blocks.

A page is read top to bottom, so its blocks run in order in one namespace: a later block may
use what an earlier one defined (the agent of the first ``docs/adk.md`` block, for instance).
Every block must compile as a plain module (``await`` only inside functions). A block whose
info string is ``python no-run`` is a fragment shown for its shape; the prose around it must
say where the complete code lives.

``python -m tests.docs.blocks PAGE`` runs PAGE's blocks; tracebacks name the page and line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

_FENCE = re.compile(r"^```(?P<info>python[^\n]*)\n(?P<code>.*?)^```", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced Python block."""

    page: Path
    line: int
    """The line of the block's first code line in the page."""
    code: str
    run: bool


def python_blocks(page: Path) -> list[Block]:
    """Every ``python`` block of ``page``, in order."""
    text = page.read_text()
    return [
        Block(
            page=page,
            line=text.count("\n", 0, match.start("code")) + 1,
            code=match["code"],
            run="no-run" not in match["info"].split(),
        )
        for match in _FENCE.finditer(text)
    ]


def run_page(page: Path) -> None:
    """Execute the page's runnable blocks in order, in one namespace, as ``__main__``."""
    namespace: dict[str, object] = {"__name__": "__main__"}
    for block in python_blocks(page):
        if block.run:
            source = "\n" * (block.line - 1) + block.code  # tracebacks show the page's lines
            exec(compile(source, str(page), "exec", dont_inherit=True), namespace)


if __name__ == "__main__":
    run_page(Path(sys.argv[1]))
