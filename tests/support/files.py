"""What a folder holds, to assert that something wrote nothing there."""

from __future__ import annotations

from pathlib import Path


def files_of(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each file in ``folder`` by name: its mode, modification time and bytes."""
    return {
        path.name: (path.stat().st_mode, path.stat().st_mtime_ns, path.read_bytes())
        for path in sorted(folder.iterdir())
    }
