"""The persistent catalog cache: what refreshes learned, on disk, shared by processes.

One SQLite file (``catalogs.sqlite3`` in the cache folder, see
:mod:`skills_core.catalog.cache_folder`) holds one row per source and catalog settings: its
entries (fingerprint, judged metadata, problems, a hash of each SKILL.md; never the bodies) as
one blob, the backend's own state (:class:`~backends.capabilities.SourceState`: a published
index's validator, a bundle's central directory), and when a process last saw it. A second
table holds the highest sequence accepted per signed index (the rollback check of
:mod:`backends.index.signing`), never pruned. SQLite, from the standard library: a write is one
atomic transaction (a crash leaves the old row or the new one, never half of either), WAL mode
lets any number of processes read while one writes, and its locks die with the process that
held them. One blob per source keeps a new process's load to one row read and one decode.

Nothing here is ever fatal or trusted blindly: a file that is not the user's, is writable by
others, corrupt, truncated or from a newer schema is logged once, removed and rebuilt; a lock
held past ``timeout`` or a full disk skips that read or write (the catalog then works as it
would without a cache). Blocking: a catalog calls these methods from worker threads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

from skills_core.catalog.cache_codec import Decoded, decode
from skills_core.catalog.cache_folder import default_cache_folder, ensure_folder, untrusted_file

logger = logging.getLogger("skillfs")

SCHEMA = 2
"""The layout of the cache file; another one is rebuilt, never read."""
FILE_NAME = "catalogs.sqlite3"
DEFAULT_MAX_AGE = 30 * 24 * 3600.0
"""Seconds after which the entries of a source no process has seen are pruned."""
_SEEN_EVERY = 3600.0
"""A source's last-seen time is written again at most this often (a write per start is a lock)."""
_DAMAGED = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
_T = TypeVar("_T")


class CachedCatalog(NamedTuple):
    """One row of the cache: a source's entries as catalogs of one setting judged them.

    ``judged`` says how, for people (``lenient``, ``strict``, ``+limits`` when not the
    default ones); ``settings`` is the digest entries are keyed by.
    """

    source: str
    judged: str
    settings: str
    skills: int
    size: int
    seen: float


class Stored(NamedTuple):
    """A source's row as read: its encoded entries, when it was last seen, the backend's state."""

    data: bytes
    seen: float
    state: bytes | None = None


class CatalogCache:
    """A cache folder's catalog file, opened on first use.

    Args:
        folder: The cache folder; by default ``$SKILLFS_CACHE_DIR``, else
            ``$XDG_CACHE_HOME/skillfs``, else ``~/.cache/skillfs``.
        max_age: Seconds after which a source no process has seen is pruned.
        timeout: Seconds to wait for another process's write lock before going without.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str] | None = None,
        *,
        max_age: float = DEFAULT_MAX_AGE,
        timeout: float = 5.0,
    ) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_folder()
        self.path = self.folder / FILE_NAME
        self._max_age = max_age
        self._timeout = timeout
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._writable = False
        self._unusable: str | None = None
        self._logged: set[str] = set()

    def __repr__(self) -> str:
        return f"CatalogCache({str(self.folder)!r})"

    def stored(self, source: str, settings: str) -> Stored | None:
        """The row saved for ``source`` under ``settings``, noted as seen now; or ``None``."""
        found = self._use(lambda db: _read_row(db, source, settings), writes=False)
        if found is not None:
            self._seen(source, settings, found.seen)
        return found

    def decoded(self, source: str, stored: Stored) -> Decoded | None:
        """The entries (and file digests) of a row :meth:`stored` found; ``None`` if damaged."""
        try:
            return decode(stored.data)
        except ValueError as exc:
            self._log(f"ignored the cached catalog of {source}: {exc}")
            return None

    def save(
        self,
        source: str,
        settings: str,
        data: bytes,
        skills: int,
        *,
        judged: str = "",
        state: bytes | None = None,
    ) -> None:
        """Replace what is saved for ``source`` under ``settings``; prune sources not seen.

        ``data`` holds ``skills`` entries as :func:`~skills_core.catalog.cache_codec.encode`
        wrote them; ``state`` is the backend's.
        """
        now = time.time()

        def write(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(
                    "INSERT INTO catalogs VALUES (?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (source, settings) DO UPDATE SET seen = excluded.seen, "
                    "skills = excluded.skills, entries = excluded.entries, state = excluded.state",
                    (source, settings, judged, now, skills, data, state),
                )
                db.execute("DELETE FROM catalogs WHERE seen < ?", (now - self._max_age,))

        self._use(write)

    def save_state(self, source: str, settings: str, state: bytes | None) -> None:
        """Replace the backend's state saved with ``source``'s entries (when there are some)."""
        update = "UPDATE catalogs SET state = ? WHERE source = ? AND settings = ?"
        self._use(lambda db: db.execute(update, (state, source, settings)) and None)

    def _seen(self, source: str, settings: str, last: float) -> None:
        """Note that ``source`` was seen now, if ``last`` (as loaded) is old enough to matter."""
        now = time.time()
        if now - last < _SEEN_EVERY:
            return
        update = "UPDATE catalogs SET seen = ? WHERE source = ? AND settings = ?"
        self._use(lambda db: db.execute(update, (now, source, settings)) and None)

    def last_sequence(self, index: str) -> int | None:
        """The highest sequence of a signed ``index`` accepted, or ``None`` (see the module)."""
        query = "SELECT sequence FROM sequences WHERE source = ?"
        row = self._use(lambda db: db.execute(query, (index,)).fetchone())
        return None if row is None else int(row[0])

    def remember_sequence(self, index: str, sequence: int) -> None:
        """Note that ``sequence`` was accepted for ``index``; a lower one never replaces it."""
        self._use(
            lambda db: (
                db.execute(
                    "INSERT INTO sequences VALUES (?, ?) ON CONFLICT (source) DO UPDATE "
                    "SET sequence = max(sequence, excluded.sequence)",
                    (index, sequence),
                )
                and None
            )
        )

    def catalogs(self) -> Sequence[CachedCatalog]:
        """Every cached catalog, most recently seen first, read writing nothing (see _peek)."""
        query = (
            "SELECT source, judged, settings, skills, length(entries), seen FROM catalogs "
            "ORDER BY seen DESC, source"
        )
        rows = self._peek(lambda db: db.execute(query).fetchall())
        return [CachedCatalog(*row) for row in rows or ()]

    def size(self) -> int:
        """Bytes the cache file and its write-ahead log take on disk."""
        return sum(path.stat().st_size for path in self._files()[:2] if path.exists())

    def clear(self) -> None:
        """Remove the cache file; the next refresh of each source starts cold."""
        with self._lock:
            self._close()
            self._remove()

    def close(self) -> None:
        """Close the connection (it is opened again on next use)."""
        with self._lock:
            self._close()

    def _use(self, action: Callable[[sqlite3.Connection], _T], *, writes: bool = True) -> _T | None:
        """Run ``action`` on the open file; ``None`` when the cache cannot be used now.

        An ``action`` that only reads the ``catalogs`` table (``writes=False``) may run on a
        read-only connection; see :meth:`_connected`.
        """
        with self._lock:
            if self._unusable is not None:
                return None
            for attempt in range(2):
                try:
                    return action(self._connected(writes))
                except sqlite3.Error as exc:
                    name = getattr(exc, "sqlite_errorname", "")
                    if name not in _DAMAGED or attempt:
                        self._log(f"went without the catalog cache: {exc}")  # busy, disk full…
                        return None
                    self._log(f"rebuilt the damaged catalog cache {self.path}: {exc}")
                    self._close()
                    self._remove()
                except OSError as exc:
                    self._log(f"went without the catalog cache: {exc}")
                    return None
            return None

    def _peek(self, action: Callable[[sqlite3.Connection], _T]) -> _T | None:
        """Run ``action``, a read, writing nothing to the folder; ``None`` when it cannot.

        Even a read-only connection creates the write-ahead log and its index beside the file
        when no process holds them, and leaves them. So a read-only connection is opened only
        when they are there (it shares them); without them the file is read as immutable (no
        locks, no side files), and that read counts only when nothing changed meanwhile (a
        writer that came and went), else it is done again. A file absent, not trusted, in a
        folder not trusted or of another schema holds nothing; unlike :meth:`_use`, nothing is
        removed or rebuilt. The cache's own open connection serves as it is.
        """
        if self._connection is not None:
            return self._use(action, writes=False)
        for _ in range(3):
            before = _stats(self._files())
            if (
                before[0] is None
                or ensure_folder(self.folder) is not None  # it exists: nothing is created
                or any(map(untrusted_file, self._files()))
            ):
                return None
            shared = before[1] is not None  # a process holds the write-ahead log
            try:
                with contextlib.closing(
                    _connect(self.path, self._timeout, "ro" if shared else "ro&immutable=1")
                ) as db:
                    version = db.execute("PRAGMA user_version").fetchone()[0]
                    found = action(db) if version == SCHEMA else None
            except sqlite3.Error as exc:
                if shared or _stats(self._files()) == before:
                    self._log(f"went without the catalog cache: {exc}")
                    return None
                continue
            if shared or _stats(self._files()) == before:
                return found
        return None

    def _connected(self, writes: bool) -> sqlite3.Connection:
        """The open connection, or a new one: read-only for a read of an existing file.

        A new process on an unchanged source only reads: a read-only connection skips the
        settings a writer applies and costs half as much to open (0.3 ms against 0.9 ms). The
        first write replaces it with a writable one.
        """
        if self._connection is None or (writes and not self._writable):
            self._close()
            self._open(writable=writes)
        assert self._connection is not None
        return self._connection

    def _open(self, *, writable: bool) -> None:
        why = ensure_folder(self.folder)
        if why is not None:
            self._unusable = why
            raise OSError(f"{why}: {self.folder}")
        distrusted = next(filter(None, map(untrusted_file, self._files())), None)
        if distrusted is not None:
            self._log(f"rebuilt the catalog cache {self.path}: {distrusted}")
            self._remove()
        writable = writable or not self.path.exists()
        db = _connect(self.path, self._timeout, "" if writable else "ro")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA):
                raise sqlite3.DatabaseError(f"schema {version}, not {SCHEMA}")
            if writable:
                _prepare(db, self.path, version)
            elif version == 0:  # a file no writer set up yet: a writer does
                db.close()
                self._open(writable=True)
                return
        except sqlite3.DatabaseError as exc:
            db.close()
            if not getattr(exc, "sqlite_errorname", ""):
                exc.sqlite_errorname = "SQLITE_NOTADB"
            raise
        except BaseException:
            db.close()
            raise
        self._connection, self._writable = db, writable
        self._closing = weakref.finalize(self, _close_quietly, db)

    def _close(self) -> None:
        if self._connection is not None:
            self._closing.detach()
            self._connection.close()
            self._connection = None

    def _files(self) -> tuple[Path, ...]:
        return (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"))

    def _remove(self) -> None:
        for path in self._files():
            path.unlink(missing_ok=True)

    def _log(self, message: str) -> None:
        """Log ``message`` once per cache."""
        if message not in self._logged:
            self._logged.add(message)
            logger.warning("%s", message)


def _connect(path: Path, timeout: float, mode: str = "") -> sqlite3.Connection:
    """A connection to ``path``: writable, or opened with a URI ``mode`` (``ro``, ``ro&...``)."""
    where = f"{path.absolute().as_uri()}?mode={mode}" if mode else str(path)
    return sqlite3.connect(
        where, timeout=timeout, isolation_level=None, check_same_thread=False, uri=bool(mode)
    )


def _close_quietly(db: sqlite3.Connection) -> None:
    """Close ``db`` when its cache is collected or the interpreter exits, whichever is first.

    A connection left open at exit leaves the write-ahead log and its index beside the file.
    """
    with contextlib.suppress(sqlite3.Error):
        db.close()


def _stats(paths: Sequence[Path]) -> tuple[tuple[int, ...] | None, ...]:
    """What changes when a file is written, replaced or removed, of each of ``paths``."""
    found: list[tuple[int, ...] | None] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:  # gone, or out of reach: none to read
            found.append(None)
        else:
            found.append((info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    return tuple(found)


def _read_row(db: sqlite3.Connection, source: str, settings: str) -> Stored | None:
    """``source``'s row under ``settings``, its entries read through a blob handle.

    A ``SELECT`` of the entries costs a new connection 6 ms at 10,000 skills (4 MB), a blob
    handle 0.5 ms: its pages are read straight into the result. One read transaction holds
    the row and its blob together, whatever another process writes meanwhile.
    """
    query = "SELECT rowid, seen, state FROM catalogs WHERE source = ? AND settings = ?"
    with _transaction(db, "DEFERRED"):
        row = db.execute(query, (source, settings)).fetchone()
        if row is None:
            return None
        with db.blobopen("catalogs", "entries", row[0], readonly=True) as blob:
            return Stored(blob.read(), row[1], row[2])


def _prepare(db: sqlite3.Connection, path: Path, version: int) -> None:
    """Set up a writable connection to the file at ``path``, and the file if it is new."""
    os.chmod(path, 0o600)  # SQLite gives its side files the same mode
    if version == 0:  # a new file: 64 KiB pages read a 4 MB row in 64 steps, not 1,000
        db.execute("PRAGMA page_size = 65536")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # durable at checkpoints; never corrupt
    if version == 0:
        with _transaction(db):
            db.execute(
                "CREATE TABLE IF NOT EXISTS catalogs (source TEXT NOT NULL, "
                "settings TEXT NOT NULL, judged TEXT NOT NULL, seen REAL NOT NULL, "
                "skills INTEGER NOT NULL, entries BLOB NOT NULL, state BLOB, "
                "PRIMARY KEY (source, settings))"
            )
            db.execute(f"PRAGMA user_version = {SCHEMA}")
    db.execute(  # added to schema 1: a file without it gains it
        "CREATE TABLE IF NOT EXISTS sequences (source TEXT PRIMARY KEY, sequence INTEGER NOT NULL)"
    )


class _transaction:
    """``BEGIN IMMEDIATE`` (or another ``mode``) … ``COMMIT``, rolled back on any exception."""

    def __init__(self, db: sqlite3.Connection, mode: str = "IMMEDIATE") -> None:
        self._db = db
        self._mode = mode

    def __enter__(self) -> None:
        self._db.execute(f"BEGIN {self._mode}")

    def __exit__(self, kind: object, exc: object, traceback: object) -> None:
        if exc is None:
            self._db.execute("COMMIT")
        elif self._db.in_transaction:
            self._db.execute("ROLLBACK")
