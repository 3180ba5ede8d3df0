"""A complete third-party backend: skills as rows ``(skill, path, data)`` of a SQLite table.

``INSERT OR REPLACE`` gives a changed file a new rowid: rowid and length are its fingerprint.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from contextlib import closing
from typing import Any

from backends import (
    DEFAULT_LIMITS,
    SKILL_MD_NAMES,
    AsyncResource,
    FileEntry,
    ResourceNotFoundError,
    SkillDocument,
    SkillNotFoundError,
    SkillRef,
    check_resource_path,
    check_size,
    check_skill_name,
    is_hidden,
)

SCHEMA = "CREATE TABLE IF NOT EXISTS files (skill, path, data BLOB, UNIQUE (skill, path))"
SKILL_MD = "SELECT path FROM files WHERE skill=? AND path IN (?, ?) ORDER BY path"
ROW = "SELECT rowid, data FROM files WHERE skill=? AND path=?"


class SqliteBackend(AsyncResource):
    """The skills in the SQLite file ``database`` (a path, or ``sqlite://`` and a path)."""

    def __init__(self, database: str) -> None:
        self.database = database.removeprefix("sqlite://")
        self.location = f"sqlite://{self.database}"

    async def list(self) -> Sequence[SkillRef]:
        rows = await self._query("SELECT skill, path, rowid, length(data) FROM files ORDER BY 1, 2")
        found: dict[str, SkillRef] = {}
        for skill, path, rowid, size in rows:  # "SKILL.md" sorts before "skill.md"
            if path in SKILL_MD_NAMES and skill[0] != "." and skill not in found:
                found[skill] = SkillRef(skill, f"{rowid}-{size}", self._where(skill, path), size)
        return list(found.values())

    async def get(self, name: str) -> SkillDocument:
        path = await self._skill_md(name)
        ((rowid, data),) = await self._query(ROW, name, path)
        return SkillDocument(name, data, f"{rowid}-{len(data)}", self._where(name, path))

    async def files(self, name: str) -> Sequence[FileEntry]:
        await self._skill_md(name)
        rows = await self._query("SELECT path, length(data), rowid FROM files WHERE skill=?", name)
        return sorted(FileEntry(path, n, str(id_)) for path, n, id_ in rows if not is_hidden(path))

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        await self._skill_md(name)
        relative = check_resource_path(path, location=self._where(name, ""))
        rows, where = await self._query(ROW, name, relative), self._where(name, relative)
        if not rows:
            raise ResourceNotFoundError("no such file", location=where)
        check_size(len(rows[0][1]), max_bytes, location=where)
        return bytes(rows[0][1])

    async def aclose(self) -> None:
        """Nothing stays open: each query opens and closes its own connection."""

    async def _skill_md(self, name: str) -> str:
        rows = await self._query(SKILL_MD, check_skill_name(name), *SKILL_MD_NAMES)
        if not rows:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self.location)
        return str(rows[0][0])

    def _where(self, name: str, path: str) -> str:
        return f"{self.location}#{name}/{path}"

    async def _query(self, sql: str, *args: Any) -> list[Any]:
        return await asyncio.to_thread(_run, self.database, sql, args)


def _run(database: str, sql: str, args: tuple[Any, ...]) -> list[Any]:
    with closing(sqlite3.connect(database)) as connection:
        connection.execute(SCHEMA)
        return connection.execute(sql, args).fetchall()
