"""The user-facing pages: README.md and every page under docs/, found afresh on each run."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def user_pages() -> list[Path]:
    """README.md and every ``docs/**/*.md``, so a new page is checked without being listed."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def page_id(page: Path) -> str:
    """A page's path relative to the repository, for test ids."""
    return page.relative_to(ROOT).as_posix()
