"""docs/api.md lists every public name of both packages, one line each, and nothing more."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import backends
import skills_core

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()


def documented(package: str) -> list[str]:
    section = PAGE.split(f"## `{package}`\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([A-Za-z_]+)` \|", section, flags=re.M)


@pytest.mark.parametrize("package", [backends, skills_core], ids=["backends", "skills_core"])
def test_all_equals_the_documented_table(package: object) -> None:
    names = documented(package.__name__)  # type: ignore[attr-defined]
    assert len(names) == len(set(names)), "a name is listed twice"
    assert sorted(names) == sorted(package.__all__)  # type: ignore[attr-defined]


@pytest.mark.parametrize("package", [backends, skills_core], ids=["backends", "skills_core"])
def test_every_public_name_imports(package: object) -> None:
    for name in package.__all__:  # type: ignore[attr-defined]
        assert getattr(package, name) is not None
