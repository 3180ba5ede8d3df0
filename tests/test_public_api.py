"""The public edge: few public modules, few public names, each listed once in docs/api.md.

A module is public when no component of its path starts with an underscore; every other
module is internal (the httpx layout). docs/api.md has one table per public module listing
exactly its ``__all__``, and the docs import nothing internal.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()

ROOT = Path(__file__).resolve().parent.parent


def public_modules() -> tuple[str, ...]:
    """Every importable module path of the two packages without an underscore component."""
    found = set()
    for package in ("backends", "skills_core"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "examples" in parts:
                continue  # skills shipped as data
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            if not any(part.startswith("_") for part in parts):
                found.add(".".join(parts))
    return tuple(sorted(found))


MODULES = public_modules()
MAX_PUBLIC_MODULES = 30
MAX_PUBLIC_NAMES = 150


ERRORS = {"backends": "backends._errors", "skills_core": "skills_core._errors"}
"""The modules whose errors a table names by one row linking to the exception tree (the tree
itself is held equal to the classes by tests/test_error_tree.py)."""


def documented(module: str) -> list[str]:
    section = PAGE.split(f"## `{module}`\n", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^\| `([A-Za-z_]+)` \|", section, flags=re.M)
    if "errors | " in section and "](limits-and-errors.md#errors-meant-" in section:
        names += importlib.import_module(ERRORS[module]).__all__
    return names


def test_every_public_module_has_a_table() -> None:
    assert sorted(re.findall(r"^## `([a-z_.]+)`$", PAGE, flags=re.M)) == sorted(MODULES)


def test_the_public_edge_is_small() -> None:
    names = {name for module in MODULES for name in importlib.import_module(module).__all__}
    assert len(MODULES) <= MAX_PUBLIC_MODULES, MODULES
    assert len(names) <= MAX_PUBLIC_NAMES, len(names)


def test_the_docs_import_nothing_internal() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    imports = re.compile(r"^\s*(?:from|import) ((?:backends|skills_core)[\w.]*)", flags=re.M)
    internal = sorted(
        f"{page.relative_to(ROOT)}: {module}"
        for page in pages
        for module in imports.findall(page.read_text())
        if module not in MODULES
    )
    assert not internal


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
