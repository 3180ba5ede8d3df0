"""One codes module: every code is defined in ``skills_core._codes`` and nowhere else."""

from __future__ import annotations

import ast
from pathlib import Path

from skills_core import _codes as codes

ROOT = Path(__file__).resolve().parent.parent
CODES = {name for name in vars(codes) if name.isupper()}


def test_no_other_module_defines_a_code() -> None:
    defined = {}
    for package in ("backends", "skills_core"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.parse(path.read_text()).body:
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Constant)
                    and node.value.value in CODES
                ):
                    defined.setdefault(node.value.value, []).append(str(path.relative_to(ROOT)))
    twice = {code: paths for code, paths in defined.items() if paths != ["skills_core/_codes.py"]}
    assert not twice


def test_tool_error_codes_are_codes() -> None:
    assert {"READ_FAILED", "SKILL_NOT_FOUND", "TOOL_NOT_PERMITTED", "INTERNAL_ERROR"} <= CODES
