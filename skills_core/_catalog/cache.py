"""The persistent catalog cache: what refreshes learned, in one SQLite file shared by processes.

Never fatal, never trusted blindly (docs/catalog.md, "The persistent cache"). Blocking: run
from worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import copyreg
import datetime
import functools
import gc
import hashlib
import io
import itertools
import logging
import operator
import os
import pickle
import sqlite3
import threading
import time
import weakref
import zlib
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TypeVar

from backends._base import Backend, FileEntry
from backends._composite import CompositeBackend
from backends._digests import digest_off_loop
from backends._memory import MemoryBackend
from backends.capabilities import export_state, import_state
from skills_core._catalog.entries import (
    CatalogEntry,
    Judging,
    entry_digest,
    frontmatter_of,
    is_verdict,
)
from skills_core._catalog.snapshot import EMPTY_SNAPSHOT, CatalogSnapshot
from skills_core._format.matching import HookAction, HookRule, Hooks
from skills_core._format.models import EMPTY_MAPPING, SkillMetadata, SkillProblem
from skills_core._trust.approvals import default_cache_folder, ensure_folder, untrusted_file

if TYPE_CHECKING:
    from skills_core._trust.lock import SkillLock

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
    """One row: ``judged`` says how, for people (``lenient``, ``strict +limits``, ...)."""

    source: str
    judged: str
    settings: str
    skills: int
    size: int
    seen: float


class Stored(NamedTuple):
    """A source's row as read."""

    data: bytes
    seen: float
    state: bytes | None = None


class CatalogCache:
    """A cache folder's catalog file, opened on first use.

    ``folder`` defaults to :func:`default_cache_folder`; ``max_age`` and ``timeout`` are seconds
    (docs/catalog.md, "The persistent cache").
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
        now = time.time()
        if found is not None and now - found.seen >= _SEEN_EVERY:
            update = "UPDATE catalogs SET seen = ? WHERE source = ? AND settings = ?"
            self._use(lambda db: db.execute(update, (now, source, settings)))
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
        digests: Collection[bytes] = (),
    ) -> None:
        """Replace what is saved for ``source`` (``data`` from :func:`encode`); prune the unseen.

        Derived values of SKILL.md files not among ``digests`` go with the entries replaced.
        """
        now = time.time()
        kept = set(digests)

        def write(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(
                    "INSERT INTO catalogs VALUES (?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (source, settings) DO UPDATE SET seen = excluded.seen, "
                    "skills = excluded.skills, entries = excluded.entries, state = excluded.state",
                    (source, settings, judged, now, skills, data, state),
                )
                old = db.execute("DELETE FROM catalogs WHERE seen < ?", (now - self._max_age,))
                if old.rowcount:
                    db.execute(_ORPHANS)
                keys = "FROM derived WHERE source = ? AND settings = ?"
                held = db.execute(f"SELECT DISTINCT digest {keys}", (source, settings))
                gone = [(source, settings, digest) for (digest,) in held if digest not in kept]
                db.executemany(f"DELETE {keys} AND digest = ?", gone)

        self._use(write)

    def derived(
        self, source: str, settings: str, kind: str, digests: Sequence[bytes]
    ) -> dict[bytes, object]:
        """The values of ``kind`` saved for ``digests`` of ``source`` (damaged ones left out)."""
        query = (
            "SELECT digest, data FROM derived WHERE source = ? AND settings = ? AND kind = ? "
            f"AND digest IN ({', '.join('?' * len(digests))})"
        )
        rows = self._use(
            lambda db: db.execute(query, (source, settings, kind, *digests)).fetchall(),
            writes=False,
        )
        found = {}
        for digest, data in rows or ():
            try:
                found[digest] = decode_value(data)
            except ValueError as exc:
                self._log(f"ignored a value derived for {source}: {exc}")
        return found

    def save_derived(
        self, source: str, settings: str, kind: str, values: Mapping[bytes, object]
    ) -> None:
        """Keep ``values`` of ``kind`` by SKILL.md digest, while ``source``'s entries are saved."""
        insert = (
            "INSERT OR REPLACE INTO derived SELECT ?, ?, ?, ?, ? WHERE EXISTS "
            "(SELECT 1 FROM catalogs WHERE source = ? AND settings = ?)"
        )
        rows = [
            (source, settings, kind, digest, encode_value(value), source, settings)
            for digest, value in values.items()
        ]

        def write(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.executemany(insert, rows)

        self._use(write)

    def save_state(self, source: str, settings: str, state: bytes | None) -> None:
        """Replace the backend's state saved with ``source``'s entries (when there are some)."""
        update = "UPDATE catalogs SET state = ? WHERE source = ? AND settings = ?"
        self._use(lambda db: db.execute(update, (state, source, settings)))

    def last_sequence(self, index: str) -> int | None:
        """The highest sequence of a signed ``index`` accepted, or ``None``."""
        query = "SELECT sequence FROM sequences WHERE source = ?"
        row = self._use(lambda db: db.execute(query, (index,)).fetchone())
        return None if row is None else int(row[0])

    def remember_sequence(self, index: str, sequence: int) -> None:
        """Note that ``sequence`` was accepted for ``index``; a lower one never replaces it."""
        upsert = (
            "INSERT INTO sequences VALUES (?, ?) ON CONFLICT (source) DO UPDATE "
            "SET sequence = max(sequence, excluded.sequence)"
        )
        self._use(lambda db: db.execute(upsert, (index, sequence)))

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
        """Run ``action`` on the open file (read-only unless ``writes``); ``None`` if unusable."""
        with self._lock:
            if self._unusable is not None:
                return None
            for attempt in range(2):
                try:
                    return action(self._connected(writes))
                except (sqlite3.Error, OSError) as exc:
                    if attempt or getattr(exc, "sqlite_errorname", "") not in _DAMAGED:
                        self._log(f"went without the catalog cache: {exc}")  # busy, disk full…
                        return None
                    self._log(f"rebuilt the damaged catalog cache {self.path}: {exc}")
                    self._close()
                    self._remove()
            return None

    def _peek(self, action: Callable[[sqlite3.Connection], _T]) -> _T | None:
        """Run ``action``, a read, writing nothing to the folder (not even side files).

        A read-only connection would create the write-ahead log: one is opened only while
        another process holds it; else the file is read as immutable, and the read counts only
        if the files are unchanged after it. Unlike :meth:`_use`, nothing is removed or rebuilt.
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
        """The open connection, or a new one: read-only (cheaper) until the first write."""
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
        except BaseException as exc:
            db.close()
            if isinstance(exc, sqlite3.DatabaseError) and not getattr(exc, "sqlite_errorname", ""):
                exc.sqlite_errorname = "SQLITE_NOTADB"
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
    """Close ``db`` when its cache is collected or at exit (else the WAL files stay)."""
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
    """``source``'s row, its entries read through a blob handle (12x cheaper than a SELECT)."""
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
    db.execute(  # added to schema 2, as sequences was
        "CREATE TABLE IF NOT EXISTS derived (source TEXT NOT NULL, settings TEXT NOT NULL, "
        "kind TEXT NOT NULL, digest BLOB NOT NULL, data BLOB NOT NULL, "
        "PRIMARY KEY (source, settings, kind, digest))"
    )


_ORPHANS = (
    "DELETE FROM derived WHERE NOT EXISTS (SELECT 1 FROM catalogs "
    "WHERE catalogs.source = derived.source AND catalogs.settings = derived.settings)"
)
"""Prunes derived values whose entries were pruned."""


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection, mode: str = "IMMEDIATE") -> Iterator[None]:
    """``BEGIN IMMEDIATE`` (or another ``mode``) … ``COMMIT``, rolled back on any exception."""
    db.execute(f"BEGIN {mode}")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


FileDigest = tuple[str, str, int, str]
"""A file's path, the fingerprint and size it had when it was hashed, and its digest."""


class FileDigests:
    """The file digests of a catalog's skills, by folder (each skill's storage key)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[FileDigest, ...]] = {}
        self.unsaved = False
        """True when a digest was learned since the cache last saved them."""

    def restore(self, known: Mapping[str, tuple[FileDigest, ...]]) -> None:
        """Take the digests the persistent cache saved."""
        self._known = dict(known)

    def keep(self, folders: Collection[str]) -> None:
        """Forget the digests of skills not in ``folders``."""
        self._known = {folder: kept for folder, kept in self._known.items() if folder in folders}

    def to_save(self) -> dict[str, tuple[FileDigest, ...]]:
        """Every skill's digests, to save now (no longer :attr:`unsaved`)."""
        self.unsaved = False
        return dict(self._known)

    async def of(
        self, folder: str, files: Sequence[FileEntry], read: Callable[[str], Awaitable[bytes]]
    ) -> list[tuple[str, int]]:
        """The digest and size of each of ``files`` (the skill's whole list, SKILL.md aside).

        ``read(path)`` reads a file not known with its listed fingerprint and size.
        """
        known = {record[0]: record[1:] for record in self._known.get(folder, ())}
        found: list[tuple[str, int]] = []
        kept: list[FileDigest] = []
        for file in files:
            held = known.get(file.path)
            if held is None or not file.fingerprint or held[:2] != (file.fingerprint, file.size):
                data = await read(file.path)
                held = (file.fingerprint, len(data), await digest_off_loop(data))
            if file.fingerprint:
                kept.append((file.path, held[0], held[1], held[2]))
            found.append((held[2], held[1]))
        record = tuple(sorted(kept))  # as saved, whatever order the listing gives
        if self._known.get(folder) != record:
            self._known[folder] = record
            self.unsaved = True
        return found


_FORMAT = b"skillfs-entries-6"
_VALUE_FORMAT = b"skillfs-derived-1"
_CRC_BYTES = 4
_MAPPINGS = ("metadata", "extra")
"""Read-only mapping fields: written as dicts, ``None`` for the shared ``EMPTY_MAPPING``."""
_SHARED = frozenset({"name", "license", "compatibility", "allowed_tools", "tags", "paths"})
"""Fields whose equal values are written, and read back, as one object."""
_ENTRY_FIELDS = tuple(field for field in CatalogEntry._fields if field not in ("metadata", "raw"))
_CONSTANTS = (None, (), True, False, "")
Column = list[object] | tuple[object]
"""A column's values, or ``(value,)``: one of :data:`_CONSTANTS` for every row."""

Decoded = tuple[dict[str, CatalogEntry], dict[str, tuple[FileDigest, ...]]]
"""The entries and the file digests :func:`encode` wrote, by folder."""


def encode(
    entries: Mapping[str, CatalogEntry],
    digests: Sequence[bytes],
    files: Sequence[tuple[FileDigest, ...]],
) -> bytes:
    """``entries`` as bytes, with each one's SKILL.md hash and file digests, never its bytes.

    Written by column (pickled), so :func:`decode` rebuilds them in C loops; a column of one
    constant throughout (no skill has ``hooks``) is written as that constant alone.
    """
    rows = list(entries.values())
    metas = [entry.metadata for entry in rows if entry.metadata is not None]
    shared: dict[object, object] = {}

    def column(values: Iterable[object], field: str) -> Column:
        found = list(values)
        first = found[0] if found else None
        if found and any(first is c for c in _CONSTANTS) and all(v is first for v in found):
            return (first,)
        if field in _SHARED:
            with contextlib.suppress(TypeError):  # an unhashable value: the column as it is
                return list(map(shared.setdefault, found, found))
        if field in _MAPPINGS:
            return [_plain(value, shared) if value else None for value in found]  # type: ignore[arg-type]
        return found

    written = {
        "digest": digests,
        "frontmatter": [frontmatter_of(entry) if entry.loaded else "" for entry in rows],
    }
    columns = (
        {
            field: written.get(field) or column(map(operator.attrgetter(field), rows), field)
            for field in _ENTRY_FIELDS
        },
        [entry.metadata is not None for entry in rows],
        {
            field: column(map(operator.attrgetter(field), metas), field)
            for field in SkillMetadata._fields
        },
        column(files, "files"),
    )
    buffer = io.BytesIO()
    _Pickler(buffer, 5).dump(columns)
    return framed(buffer.getvalue())


def framed(payload: bytes, form: bytes = _FORMAT) -> bytes:
    """``payload`` behind the format's name and its CRC-32, as :func:`decode` reads it."""
    return form + zlib.crc32(payload).to_bytes(_CRC_BYTES, "big") + payload


def _unframed(data: bytes, form: bytes) -> memoryview:
    """The payload :func:`framed` put behind ``form``, checked."""
    view, start = memoryview(data), len(form) + _CRC_BYTES
    crc = int.from_bytes(view[len(form) : start], "big")
    if view[: len(form)] != form or zlib.crc32(view[start:]) != crc:
        raise ValueError("unknown format or damaged data")
    return view[start:]


def encode_value(value: object) -> bytes:
    """A value derived from a skill's content, pickled as entries are, compressed and framed."""
    buffer = io.BytesIO()
    _Pickler(buffer, 5).dump(value)
    return framed(zlib.compress(buffer.getvalue(), 1), _VALUE_FORMAT)


def decode_value(data: bytes) -> object:
    """The value :func:`encode_value` wrote; a global not allowed in an entry refused.

    Raises:
        ValueError: ``data`` is not what :func:`encode_value` writes.
    """
    try:
        payload = zlib.decompress(_unframed(data, _VALUE_FORMAT))
        return _Unpickler(io.BytesIO(payload)).load()
    except Exception as exc:  # any damage: truncated, corrupt, foreign
        raise ValueError(f"not a derived value ({type(exc).__name__}: {exc})") from exc


def _plain(mapping: Mapping[Any, Any], shared: dict[object, object]) -> dict[Any, Any]:
    """``mapping`` as a dict whose string keys and values are ``shared``'s copies."""
    return {
        (shared.setdefault(key, key) if type(key) is str else key): (
            shared.setdefault(value, value) if type(value) is str else value
        )
        for key, value in mapping.items()
    }


def decode(data: bytes) -> Decoded:
    """The entries and file digests :func:`encode` wrote; a global of any other type refused.

    Raises:
        ValueError: ``data`` is not what :func:`encode` writes.
    """
    try:
        with collector_paused():
            return _decode(data)
    except Exception as exc:  # any damage: truncated, corrupt, foreign
        raise ValueError(f"not a cached catalog ({type(exc).__name__}: {exc})") from exc


def _decode(data: bytes) -> Decoded:
    payload = _unframed(data, _FORMAT)
    entry_columns, loaded, meta_columns, files = _Unpickler(io.BytesIO(payload)).load()
    rows, served = len(loaded), sum(loaded)
    entry_columns = {key: _values(column, rows) for key, column in entry_columns.items()}
    meta_columns = {key: _values(column, served) for key, column in meta_columns.items()}
    names = entry_columns["name"]
    for field in _MAPPINGS:
        meta_columns[field] = [
            MappingProxyType(items) if items else EMPTY_MAPPING for items in meta_columns[field]
        ]
    metas = iter(_rows(SkillMetadata, (meta_columns[field] for field in SkillMetadata._fields)))
    entry_columns["metadata"] = [next(metas) if flag else None for flag in loaded]
    entry_columns["raw"] = [b""] * len(names)
    if next(metas, None) is not None:
        raise ValueError("more metadata than loaded entries")
    entries = _rows(CatalogEntry, (entry_columns[field] for field in CatalogEntry._fields))
    digested = {name: kept for name, kept in zip(names, _values(files, rows), strict=True) if kept}
    return dict(zip(names, entries, strict=True)), digested


def _values(column: Column, rows: int) -> list[Any]:
    """A column's values, a constant one's repeated ``rows`` times."""
    if isinstance(column, list):
        return column
    if len(column) != 1 or not any(column[0] is constant for constant in _CONSTANTS):
        raise ValueError("a column of one value that is no constant")
    return [column[0]] * rows


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while long-lived objects without cycles are made.

    What was made then moves to the oldest generation unexamined, unless something froze
    objects on purpose (a server before forking).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def _rows(kind: type[_T], columns: Iterable[Sequence[Any]]) -> list[_T]:
    """Named tuples of ``kind`` from its columns, built in C."""
    build: Any = tuple.__new__
    return list(map(build, itertools.repeat(kind), zip(*columns, strict=True)))


def _mapping(items: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only mapping (pickle cannot name ``mappingproxy``)."""
    return MappingProxyType(items)


_REDUCERS: Mapping[type, Callable[[Any], Any]] = {
    **copyreg.dispatch_table,
    MappingProxyType: lambda proxy: (_mapping, (dict(proxy),)),
    Hooks: lambda hooks: (Hooks, (dict(hooks), dict(hooks.raw))),
}
"""How a frontmatter's read-only mappings are written (looked up by type, in C)."""

_ALLOWED: dict[tuple[str, str], object] = {
    (kind.__module__, kind.__qualname__): kind
    for kind in (
        SkillProblem,
        HookRule,
        HookAction,
        datetime.date,
        datetime.datetime,
        datetime.time,
        datetime.timedelta,
        datetime.timezone,
        _mapping,
        Hooks,
    )
}


class _Pickler(pickle.Pickler):
    def __init__(self, file: IO[bytes], protocol: int) -> None:
        super().__init__(file, protocol)
        self.dispatch_table = _REDUCERS


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a catalog entry")
        return found


CacheOption = CatalogCache | bool | str | os.PathLike[str]
"""What every ``cache=`` takes: ``True`` for the default folder, ``False`` for none, a
:class:`CatalogCache`, or the path of a cache folder."""


def cache_link(cache: CacheOption, backend: Backend, judging: Judging) -> CacheLink | None:
    """The link a catalog uses; ``None`` without a cache or for a memory backend.

    Raises:
        TypeError: ``cache`` is none of :data:`CacheOption`.
    """
    if isinstance(cache, bool):
        folder = CatalogCache() if cache else None
    elif isinstance(cache, CatalogCache):
        folder = cache
    elif isinstance(cache, str | os.PathLike):
        folder = CatalogCache(cache)
    else:
        raise TypeError(f"cache must be a bool, a CatalogCache or a folder's path, not {cache!r}")
    if folder is None or not _fingerprints_outlive_the_process(backend):
        return None
    return CacheLink(folder, backend, judging)


def _fingerprints_outlive_the_process(backend: Backend) -> bool:
    if isinstance(backend, CompositeBackend):
        return all(map(_fingerprints_outlive_the_process, backend.backends))
    return not isinstance(backend, MemoryBackend) and not backend.location.startswith("memory:")


class CacheLink:
    """Loads and saves one catalog's entries in ``cache`` (the other arguments: the catalog's)."""

    def __init__(self, cache: CatalogCache, backend: Backend, judging: Judging):
        self.cache = cache
        self._backend = backend
        self._source = backend.location
        self._judged_by = (SCHEMA, type(backend).__qualname__, repr(judging))
        default = judging[1:] == Judging()[1:]
        self._judged = ("strict" if judging.strict else "lenient") + ("" if default else " +limits")
        self._settings = ""
        self._saved: dict[str, tuple[CatalogEntry, bytes]] = {}
        self._state: bytes | None = None  # the backend's, as saved or loaded

    async def seed(self, files: FileDigests, lock: SkillLock | None) -> CatalogSnapshot | None:
        """The snapshot saved for this source (empty when damaged); ``None`` without a row.

        ``files`` gets the saved file digests and the backend its saved state.
        """
        read = await self._guarded(functools.partial(self._read, files, lock))
        if read is None:
            return None
        self._state, seed = read
        import_state(self._backend, self._state)
        return seed

    async def save(
        self, snapshot: CatalogSnapshot, files: FileDigests, *, seeded_from: CatalogSnapshot
    ) -> None:
        """Save ``snapshot``'s entries, ``files`` and the backend's state, if any changed."""
        state = export_state(self._backend)
        if snapshot is not seeded_from or files.unsaved:
            save = functools.partial(self._save, snapshot.entries, files.to_save(), state)
            await self._guarded(save)
        elif state != self._state and self._settings:
            save = functools.partial(self.cache.save_state, self._source, self._settings, state)
            await self._guarded(save)
        self._state = state

    async def _guarded(self, work: Callable[[], _T]) -> _T | None:
        """``work()`` in a worker thread; ``None`` if it raises (a cache is never fatal)."""
        try:
            return await asyncio.to_thread(work)
        except Exception:
            logger.warning("%s: went without the catalog cache", self._source, exc_info=True)
            return None

    def _read(
        self, files: FileDigests, lock: SkillLock | None
    ) -> tuple[bytes | None, CatalogSnapshot] | None:
        """The backend's saved state and the snapshot of the saved entries, if any."""
        judged_by: tuple[object, ...] = self._judged_by
        if lock is not None:  # its refusals name where it is
            judged_by += (lock.digest, lock.location)
            self._judged = self._judged.removesuffix(" +lock") + " +lock"
        self._settings = _settings_digest(judged_by)
        stored = self.cache.stored(self._source, self._settings)
        if stored is None:
            return None
        with collector_paused():  # the snapshot's mappings are as many objects again
            decoded = self.cache.decoded(self._source, stored)
            if not decoded or not decoded[0]:
                return stored.state, EMPTY_SNAPSHOT
            files.restore(decoded[1])
            return stored.state, CatalogSnapshot.build(decoded[0])

    def _save(
        self,
        entries: Mapping[str, CatalogEntry],
        files: Mapping[str, tuple[FileDigest, ...]],
        state: bytes | None,
    ) -> None:
        if not self._settings:  # the digest of the settings could not be made: no key to use
            return
        saved, kept = self._saved, {}
        for folder, entry in entries.items():
            if is_verdict(entry):
                known = saved.get(folder)  # saved before: its SKILL.md is hashed already
                digest = known[1] if known and known[0] is entry else entry_digest(entry)
                kept[folder] = (entry, digest)
        self._saved = kept
        verdicts = {folder: pair[0] for folder, pair in kept.items()}
        digests = [pair[1] for pair in kept.values()]
        data = encode(verdicts, digests, [files.get(folder, ()) for folder in verdicts])
        self.cache.save(
            self._source,
            self._settings,
            data,
            len(verdicts),
            judged=self._judged,
            state=state,
            digests=digests,
        )

    async def derived(self, kind: str, digests: Sequence[bytes]) -> dict[bytes, object]:
        """The values of ``kind`` saved for these SKILL.md ``digests``."""
        if not self._settings or not digests:
            return {}
        read = functools.partial(self.cache.derived, self._source, self._settings, kind, digests)
        return await self._guarded(read) or {}

    async def save_derived(self, kind: str, values: Mapping[bytes, object]) -> None:
        """Keep ``values`` of ``kind`` by SKILL.md digest, while the entries are kept."""
        if self._settings and values:
            save = self.cache.save_derived
            await self._guarded(functools.partial(save, self._source, self._settings, kind, values))


@functools.cache
def _settings_digest(judged_by: tuple[object, ...]) -> str:
    """A digest of what decides a verdict, the judging code's files' sizes and mtimes included."""
    code = code_version(*(path for folder in _JUDGING_CODE for path in folder.rglob("*.py")))
    return hashlib.sha256(repr((code, *judged_by)).encode()).hexdigest()[:32]


def code_version(*files: str | os.PathLike[str]) -> str:
    """A digest of the size and mtime of each of ``files``, the code that made a cached value."""
    stamp = sorted(
        (str(Path(path).resolve().relative_to(_PACKAGES)), info.st_size, info.st_mtime_ns)
        for path in files
        for info in (os.stat(path),)
    )
    return hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]


_PACKAGES = Path(__file__).resolve().parents[2]
_JUDGING_CODE = (
    _PACKAGES / "backends",
    _PACKAGES / "skills_core" / "_format",
    _PACKAGES / "skills_core" / "_trust",
    Path(__file__).resolve().parent,
)
