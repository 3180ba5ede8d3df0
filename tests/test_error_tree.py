"""The exception tree is drawn once, in skills_core._errors; the docs show that drawing.

Both are generated from nothing: these tests hold them equal to the classes (names, parents,
extra built-in bases) and the names equal to the one list of them, the errors modules' ``__all__``.
"""

from __future__ import annotations

import re
from pathlib import Path

import backends._errors
import skills_core._errors

DOCS = Path(__file__).resolve().parent.parent / "docs" / "limits-and-errors.md"
_BRANCH = re.compile(r"[│├└─ ]*")


def drawing(text: str) -> list[str]:
    """The tree's lines, from its ``SkillfsError`` line, without their common indentation."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("SkillfsError "))
    indent = len(lines[start]) - len(lines[start].lstrip())
    tree = [lines[start][indent:]]
    for line in lines[start + 1 :]:
        if not line.strip() or not line[indent:].startswith(("│", "├", "└", "    ")):
            break
        tree.append(line[indent:].rstrip())
    return tree


def drawn_classes() -> dict[str, tuple[str, ...]]:
    """Each drawn class by name, with the names of its bases: parent first, then ``(also X)``."""
    bases: dict[str, tuple[str, ...]] = {}
    parents: list[str] = []
    for line in drawing(skills_core._errors.__doc__ or ""):
        depth = _BRANCH.match(line).end() // 4  # type: ignore[union-attr]
        name, _, description = line[depth * 4 :].partition(" ")
        also = re.match(r"\s*\(also ([\w, ]+)\)", description)
        del parents[depth:]
        bases[name] = (*parents[-1:], *(also.group(1).split(", ") if also else ()))
        parents.append(name)
    return bases


def defined(module: object) -> dict[str, type]:
    return {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, Exception)
        and value.__module__ == getattr(module, "__name__", "")
    }


def test_the_docs_show_the_drawing_of_the_errors_module() -> None:
    assert drawing(DOCS.read_text()) == drawing(skills_core._errors.__doc__ or "")


def test_the_drawing_holds_every_error_class_with_its_bases() -> None:
    classes = {**defined(backends._errors), **defined(skills_core._errors)}
    drawn = drawn_classes()
    assert sorted(drawn) == sorted(classes) == sorted(skills_core._errors.__all__)
    for name, cls in classes.items():
        assert tuple(base.__name__ for base in cls.__bases__) == (drawn[name] or ("Exception",))


def test_the_storage_branch_is_listed_once_where_it_is_defined() -> None:
    assert sorted(backends._errors.__all__) == sorted(defined(backends._errors))
