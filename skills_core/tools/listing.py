"""A skill's files as a model sees them: bounded, however many the skill holds.

``load_skill`` lists every file of a normal skill. A skill with more files than
:data:`MAX_LISTED_FILES` (or with paths too long to list within :data:`MAX_LISTED_CHARS`) gets
a summary instead: the first paths, the total, and how many files each top-level folder holds.
The model then lists one folder at a time (:func:`folder_listing`: its files with sizes and
its sub-folders with file counts), just as bounded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from backends.base import FileEntry
from backends.paths import SKILL_MD_NAMES

MAX_LISTED_FILES = 100
"""Most file paths ``load_skill`` lists, and most entries one folder listing shows."""

MAX_LISTED_CHARS = 8_000
"""Most characters of paths one listing holds (S3 keys may be 1,024 characters long)."""

ROOT_FOLDERS = frozenset({".", "./"})
"""Paths that name the skill's own folder in a folder listing."""


def files_summary(files: Sequence[FileEntry]) -> dict[str, Any]:
    """The ``files`` part of ``load_skill``'s result: every path, or a bounded summary."""
    paths = [entry.path for entry in files if entry.path not in SKILL_MD_NAMES]
    listed = _within_budget(paths)
    if len(listed) == len(paths):
        return {"files": paths}
    counts = Counter(path.split("/", 1)[0] if "/" in path else "." for path in paths)
    folders = [{"path": folder, "files": count} for folder, count in sorted(counts.items())]
    example = next((folder["path"] for folder in folders if folder["path"] != "."), ".")
    return {
        "files": listed,
        "file_count": len(paths),
        "folders": folders[:MAX_LISTED_FILES],
        "folder_count": len(folders),
        "files_note": (
            f"Only the first {len(listed)} of {len(paths)} files are listed; 'folders' counts "
            "the files below each top-level folder. To list one folder, read its path as a "
            f"resource (file_path {example!r})."
        ),
    }


def folder_listing(files: Sequence[FileEntry], folder: str) -> dict[str, Any] | None:
    """What one folder of a skill holds, bounded; ``None`` when no file lies below it.

    Args:
        files: Every file of the skill.
        folder: A normalised relative folder path, or ``"."`` for the skill's own folder.
    """
    prefix = "" if folder == "." else f"{folder}/"
    direct: list[FileEntry] = []
    below: Counter[str] = Counter()
    for entry in files:
        if not entry.path.startswith(prefix):
            continue
        head, separator, _ = entry.path[len(prefix) :].partition("/")
        if separator:
            below[prefix + head] += 1
        else:
            direct.append(entry)
    if not direct and not below:
        return None
    entries: list[dict[str, Any]] = [
        {"path": path, "files": count} for path, count in sorted(below.items())
    ]
    entries += ({"path": entry.path, "size": entry.size} for entry in direct)
    shown = _within_budget(entries, key=lambda item: item["path"])
    result: dict[str, Any] = {
        "folder": folder,
        "folders": [item for item in shown if "files" in item],
        "files": [item for item in shown if "size" in item],
        "file_count": len(direct),
        "folder_count": len(below),
    }
    if len(shown) < len(entries):
        result["note"] = f"Only the first {len(shown)} of {len(entries)} entries are listed."
    return result


def _within_budget(items: Sequence[Any], key: Any = str) -> list[Any]:
    """The first items that fit :data:`MAX_LISTED_FILES` and :data:`MAX_LISTED_CHARS`."""
    kept: list[Any] = []
    chars = 0
    for item in items[:MAX_LISTED_FILES]:
        chars += len(key(item))
        if chars > MAX_LISTED_CHARS:
            break
        kept.append(item)
    return kept
