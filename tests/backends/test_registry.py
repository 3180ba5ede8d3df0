"""Third-party URLs: register_backend in-process, a ``skillfs.backends`` entry point for the CLI."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import pytest

from backends import LocalBackend, UnsupportedSourceError, open_backend, register_backend
from backends._opener import ENTRY_POINT_GROUP
from examples.sqlite_backend import SCHEMA, SqliteBackend
from skills_core import SkillCatalog
from tests.support.processes import ROOT, run_python

PDF = b"---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n"


def sqlite_skills(database: Path) -> Path:
    """A SQLite file holding one skill, ``pdf``."""
    with closing(sqlite3.connect(database)) as connection, connection:
        connection.execute(SCHEMA)
        connection.execute("INSERT INTO files VALUES ('pdf', 'SKILL.md', ?)", (PDF,))
    return database


def a_distribution(folder: Path, *entry_points: str) -> Path:
    """An installed distribution declaring ``entry_points`` in skillfs's group, in ``folder``."""
    info = folder / "skillfs_test_backends-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: skillfs-test-backends\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n" + "\n".join(entry_points))
    return folder


def skillfs_list(url: str, *, path: Sequence[Path] = ()) -> tuple[int, str]:
    """``python -m skills_core.cli list URL`` in a process with ``path`` importable too."""
    done = run_python("-m", "skills_core.cli", "list", url, cwd=ROOT, path=path)
    return done.returncode, done.stdout + done.stderr


async def test_a_registered_scheme_opens_by_url(tmp_path: Path) -> None:
    database = await asyncio.to_thread(sqlite_skills, tmp_path / "skills.db")
    scheme = f"sqlite{uuid.uuid4().hex[:8]}"
    register_backend(scheme, lambda url: SqliteBackend(url.split("://", 1)[1]))

    async with open_backend(f"{scheme}://{database}") as backend:
        catalog = SkillCatalog(backend)
        assert isinstance(catalog.backend, SqliteBackend)
        assert (await catalog.refresh()).added == ("pdf",)
        assert (await catalog.get("pdf")).name == "pdf"


def test_a_taken_scheme_is_replaced_only_with_clobber() -> None:
    with pytest.raises(ValueError, match="file:// already has a backend"):
        register_backend("file", SqliteBackend)  # the built-ins live in the same registry
    scheme = f"taken{uuid.uuid4().hex[:8]}"
    register_backend(scheme, SqliteBackend)
    register_backend(scheme, SqliteBackend)  # the same factory again is no change
    register_backend(scheme, LocalBackend, clobber=True)
    assert isinstance(open_backend(f"{scheme}:///srv/skills"), LocalBackend)


def test_an_unregistered_scheme_says_how_to_add_one() -> None:
    with pytest.raises(UnsupportedSourceError, match=r"register_backend or a 'skillfs\.backends'"):
        open_backend("nosuchscheme://skills")


def test_the_cli_lists_a_scheme_an_installed_package_declares(tmp_path: Path) -> None:
    database = sqlite_skills(tmp_path / "skills.db")
    url = f"sqlite://{database}"
    assert skillfs_list(url) == (
        2,
        f"error: {url}: no backend or filesystem for sqlite:// URLs (add one with "
        "backends.register_backend or a 'skillfs.backends' entry point)\n",
    )

    installed = a_distribution(tmp_path / "site", "sqlite = examples.sqlite_backend:SqliteBackend")
    code, output = skillfs_list(url, path=[installed])
    assert code == 0, output
    assert output.splitlines() == ["NAME  DESCRIPTION", "pdf   Fill PDF forms."]


def test_an_entry_point_that_fails_to_load_is_named(tmp_path: Path) -> None:
    installed = a_distribution(tmp_path / "site", "broken = no_such_module:Backend")
    code, output = skillfs_list("broken://x", path=[installed])
    assert code == 2
    assert "the broken:// backend 'no_such_module:Backend'" in output
    assert "failed to load: No module named 'no_such_module'" in output


REGISTRY_FIRST = """
import pytest
from backends._opener import register_backend
from examples.sqlite_backend import SqliteBackend

register_backend("sqlite", SqliteBackend)  # before anything imported the opener
with pytest.raises(ValueError, match="file:// already has a backend"):
    register_backend("file", SqliteBackend)

from backends import open_backend

for source in ("skills", "file:///srv/skills", "memory:", "https://example.com", "sqlite://x.db"):
    print(source, type(open_backend(source)).__name__)
"""


def test_the_built_in_schemes_hold_whatever_is_imported_first(tmp_path: Path) -> None:
    done = run_python("-c", REGISTRY_FIRST, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "skills LocalBackend",
        "file:///srv/skills LocalBackend",
        "memory: MemoryBackend",
        "https://example.com HttpIndexBackend",
        "sqlite://x.db SqliteBackend",
    ]
