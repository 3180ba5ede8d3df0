"""One meaning per file name: a module name used twice in backends/ and skills_core/ means one
thing.

A reader who met ``budget.py`` as a catalog's character budget should not find a time budget
under the same name. Package files and ``__main__`` don't count. A name that is used twice is
listed here with the one meaning both files share; any other repeat fails, and so does a listed
name no longer repeated (the list stays exact).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SHARED = {
    "_errors": "a package's exception classes (storage errors; the whole tree)",
    "testing": "what tests of code using the package need (backend conformance; a scripted model)",
}


def repeated_names() -> dict[str, list[str]]:
    files: dict[str, list[str]] = defaultdict(list)
    for package in ("backends", "skills_core"):
        for path in (ROOT / package).rglob("*.py"):
            if path.stem not in ("__init__", "__main__"):
                files[path.stem].append(str(path.relative_to(ROOT)))
    return {name: sorted(paths) for name, paths in files.items() if len(paths) > 1}


def test_every_repeated_file_name_has_one_listed_meaning() -> None:
    repeats = repeated_names()
    assert sorted(set(repeats) - set(SHARED)) == [], repeats
    assert sorted(set(SHARED) - set(repeats)) == []
