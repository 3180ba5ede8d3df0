"""The third-party backend of docs/backends.md passes the shipped conformance suite unchanged."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

import pytest

from backends import Backend
from backends.testing import BackendConformance, BackendHarness
from examples.sqlite_backend import SCHEMA, SqliteBackend
from tests.support.processes import run_python

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sqlite_backend.py"


class SqliteHarness(BackendHarness):
    def __init__(self, database: Path) -> None:
        self.database = str(database)

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        return SqliteBackend(self.database)

    async def write(self, path: str, data: bytes) -> None:
        skill, _, relative = path.partition("/")
        await self._execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", skill, relative, data)

    async def delete_skill(self, name: str) -> None:
        await self._execute("DELETE FROM files WHERE skill = ?", name)

    async def _execute(self, sql: str, *args: object) -> None:
        def run() -> None:
            with closing(sqlite3.connect(self.database)) as connection, connection:
                connection.execute(SCHEMA)
                connection.execute(sql, args)

        await asyncio.to_thread(run)


class TestSqliteBackend(BackendConformance):
    @pytest.fixture
    def harness(self, tmp_path: Path) -> BackendHarness:
        return SqliteHarness(tmp_path / "skills.db")


def test_the_docs_show_the_whole_example_in_under_90_lines() -> None:
    source = EXAMPLE.read_text()
    assert len(source.splitlines()) < 90
    assert f"```python\n{source}```" in (ROOT / "docs" / "backends.md").read_text()


def test_the_suite_runs_under_a_plain_pytest_configuration(tmp_path: Path) -> None:
    """No asyncio_mode setting, no conftest: pytest-asyncio's default strict mode."""
    (tmp_path / "test_mine.py").write_text(
        "import pytest\n"
        "from backends.testing import BackendConformance\n"
        "from tests.backends.test_third_party_example import SqliteHarness\n\n\n"
        "class TestMine(BackendConformance):\n"
        "    @pytest.fixture\n"
        "    def harness(self, tmp_path):\n"
        "        return SqliteHarness(tmp_path / 'skills.db')\n"
    )
    done = run_python("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_mine.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout
    assert "failed" not in done.stdout
    assert "skipped" not in done.stdout
