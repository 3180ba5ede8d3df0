"""docs/choosing-skills.md tells the truth: its Python blocks run, in order, on the examples."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "choosing-skills.md"
EXAMPLES = ROOT / "skills_core" / "examples"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.+?)```", PAGE.read_text(), re.DOTALL)


async def test_the_python_blocks_run_on_the_bundled_skills() -> None:
    namespace: dict[str, Any] = {}
    assert len(blocks()) >= 5
    for number, block in enumerate(blocks(), start=1):
        source = block.replace('"./skills"', repr(str(EXAMPLES)))
        code = compile(
            source, f"{PAGE.name} block {number}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        )
        result = eval(code, namespace)  # the documentation's own code
        if inspect.iscoroutine(result):
            await result
