"""docs/api.md lists every public name of each public module, one line each, and nothing more."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()

MODULES = (
    "backends",
    "backends.capabilities",
    "backends.testing",
    "skills_core",
    "skills_core.adk",
    "skills_core.adk.adk_skills",
    "skills_core.tools",
    "skills_core.context",
)


ERRORS = {"backends": "backends.errors", "skills_core": "skills_core.errors"}
"""The modules whose errors a table names by one row linking to the exception tree (the tree
itself is held equal to the classes by tests/test_error_tree.py)."""


def documented(module: str) -> list[str]:
    section = PAGE.split(f"## `{module}`\n", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^\| `([A-Za-z_]+)` \|", section, flags=re.M)
    if "errors | " in section and "](limits-and-errors.md#errors-meant-" in section:
        names += importlib.import_module(ERRORS[module]).__all__
    return names


def test_every_module_with_a_table_is_tested() -> None:
    assert sorted(re.findall(r"^## `([a-z_.]+)`$", PAGE, flags=re.M)) == sorted(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_all_equals_the_documented_table(name: str) -> None:
    names = documented(name)
    assert len(names) == len(set(names)), "a name is listed twice"
    assert sorted(names) == sorted(importlib.import_module(name).__all__)


@pytest.mark.parametrize("name", MODULES)
def test_every_public_name_imports(name: str) -> None:
    module = importlib.import_module(name)
    for public in module.__all__:
        assert getattr(module, public) is not None
