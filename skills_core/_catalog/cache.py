"""The persistent catalog cache: what refreshes learned, on disk, shared by processes.

One SQLite file (``catalogs.sqlite3`` in the cache folder) holds one row per source and catalog
settings: its entries (fingerprint, judged metadata, problems, a hash of each SKILL.md, each
file's digest; never the bodies) as one blob, the backend's own state
(:class:`~backends.capabilities.SourceState`), and when a process last saw it; a second table
the highest sequence accepted per signed index. A write is one atomic transaction; WAL mode lets
processes read while one writes.

A catalog's first refresh starts from the entries a previous process saved for its source
(:class:`CacheLink`), keyed by the backend's location and a digest of everything that decides a
verdict (skillfs's code, the schema, the backend's type, ``strict``, the limits, a lock); an
entry is reused only when its fingerprint equals the listing's.

Nothing here is fatal or trusted blindly: a file that is not the user's, is writable by others,
corrupt or from another schema is logged once, removed and rebuilt; a lock held past
``timeout`` or a full disk skips that read or write. Blocking: run from worker threads.
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
from typing import IO, TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from backends._base import Backend, FileEntry
from backends._composite import CompositeBackend
from backends._digests import digest_off_loop
from backends._limits import DEFAULT_LIMITS, Limits
from backends._memory import MemoryBackend
from backends.capabilities import ListedDocument, export_state, import_state
from skills_core._catalog.entries import CatalogEntry, entry_digest, frontmatter_of, is_verdict
from skills_core._catalog.snapshot import EMPTY_SNAPSHOT, CatalogSnapshot
from skills_core._format.matching import HookAction, HookRule, Hooks
from skills_core._format.models import (
    DEFAULT_FORMAT_LIMITS,
    EMPTY_MAPPING,
    FormatLimits,
    SkillMetadata,
    SkillProblem,
)
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

        ``data`` holds ``skills`` entries as :func:`~skills_core._catalog.cache.encode`
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


FileDigest = tuple[str, str, int, str]
"""A file's path, the fingerprint and size it had when it was hashed, and its digest."""


class FileDigests:
    """The file digests of a catalog's skills, by folder (each skill's storage key)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[FileDigest, ...]] = {}
        self.unsaved = False
        """True when a digest was learned since the cache last saved them."""

    def restore(self, known: Mapping[str, tuple[FileDigest, ...]]) -> None:
        """Take the digests the persistent cache saved (before the first refresh's)."""
        self._known = dict(known)

    def keep(self, folders: Collection[str]) -> None:
        """Forget the digests of skills not in ``folders`` (gone at a refresh)."""
        self._known = {folder: kept for folder, kept in self._known.items() if folder in folders}

    def to_save(self) -> dict[str, tuple[FileDigest, ...]]:
        """Every skill's digests, as the cache saves them now (no longer :attr:`unsaved`)."""
        self.unsaved = False
        return dict(self._known)

    async def of(
        self, folder: str, files: Sequence[FileEntry], read: Callable[[str], Awaitable[bytes]]
    ) -> list[tuple[str, int]]:
        """The digest and size of each of ``files``; ``read(path)`` reads one not known as is.

        ``files`` is the skill's whole list (its SKILL.md aside): digests of others are dropped.
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
_CRC_BYTES = 4
_MAPPINGS = ("metadata", "extra")
"""Metadata fields held as read-only mappings: written as dicts, or ``None`` when empty (read
back as the shared ``EMPTY_MAPPING``)."""
_SHARED = frozenset({"name", "license", "compatibility", "allowed_tools", "tags", "paths"})
"""Fields whose values repeat (a folder's name is its skill's too): equal values are written,
and read back, as one object."""
_ENTRY_FIELDS = tuple(field for field in CatalogEntry._fields if field not in ("metadata", "raw"))
_CONSTANTS = (None, (), True, False, "")
Column = list[object] | tuple[object]
"""A column's values, or ``(value,)``: one of :data:`_CONSTANTS` for every row."""

Decoded = tuple[dict[str, CatalogEntry], dict[str, tuple[FileDigest, ...]]]
"""The entries :func:`encode` wrote, and the file digests of those that have some, by folder."""


def encode(
    entries: Mapping[str, CatalogEntry],
    digests: Sequence[bytes],
    files: Sequence[tuple[FileDigest, ...]],
) -> bytes:
    """``entries`` as bytes, with the hash of each one's SKILL.md and its file digests (in order).

    Entries are written by column (every name, then every fingerprint, …), pickled: a new
    process rebuilds them in C loops, not a Python call per entry. A column holding one constant
    throughout (no skill has ``hooks``) is written as that constant alone. The SKILL.md bytes
    are never written (a loaded skill's frontmatter text is, for ``skillfs serve``).
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


def framed(payload: bytes) -> bytes:
    """``payload`` behind the format's name and its CRC-32, as :func:`decode` reads it."""
    return _FORMAT + zlib.crc32(payload).to_bytes(_CRC_BYTES, "big") + payload


def _plain(mapping: Mapping[Any, Any], shared: dict[object, object]) -> dict[Any, Any]:
    """``mapping`` as a dict whose string keys and values are ``shared``'s copies."""
    return {
        (shared.setdefault(key, key) if type(key) is str else key): (
            shared.setdefault(value, value) if type(value) is str else value
        )
        for key, value in mapping.items()
    }


def decode(data: bytes) -> Decoded:
    """The entries and file digests :func:`encode` wrote, by folder.

    Only the types an entry is made of are read back: any other global in the data refuses the
    whole blob, so reading a cache never runs code.

    Raises:
        ValueError: ``data`` is not what :func:`encode` writes.
    """
    try:
        with collector_paused():
            return _decode(data)
    except Exception as exc:  # any damage: truncated, corrupt, foreign
        raise ValueError(f"not a cached catalog ({type(exc).__name__}: {exc})") from exc


def _decode(data: bytes) -> Decoded:
    view, start = memoryview(data), len(_FORMAT) + _CRC_BYTES
    crc = int.from_bytes(view[len(_FORMAT) : start], "big")
    if view[: len(_FORMAT)] != _FORMAT or zlib.crc32(view[start:]) != crc:
        raise ValueError("unknown format or damaged data")
    entry_columns, loaded, meta_columns, files = _Unpickler(io.BytesIO(view[start:])).load()
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
    """Pause the cyclic garbage collector while a decode allocates ~17 objects per entry.

    Those objects hold no cycles and live as long as the catalog; what was made is moved to the
    oldest generation unexamined (``gc.freeze()`` then ``gc.unfreeze()``), unless something
    froze objects on purpose (a server before forking). Left paused if something else paused it.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()  # what was made moves to the oldest generation, unexamined
            gc.unfreeze()
        gc.enable()


def _rows(kind: type[_T], columns: Iterable[Sequence[Any]]) -> list[_T]:
    """Named tuples of ``kind`` from its columns (of equal lengths), built in C."""
    build: Any = tuple.__new__
    return list(map(build, itertools.repeat(kind), zip(*columns, strict=True)))


def _mapping(items: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only mapping (what frontmatter mappings are) from its items."""
    return MappingProxyType(items)


def _hooks(rules: dict[str, tuple[HookRule, ...]], raw: dict[str, Any]) -> Hooks:
    return Hooks(rules, raw)


_REDUCERS: Mapping[type, Callable[[Any], Any]] = {
    **copyreg.dispatch_table,
    MappingProxyType: lambda proxy: (_mapping, (dict(proxy),)),
    Hooks: lambda hooks: (_hooks, (dict(hooks), dict(hooks.raw))),
}
"""How the read-only mappings of a frontmatter are written (looked up by type, in C)."""

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
        _hooks,
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


class Listing(Protocol):
    """The loader's listing: a cold one reads SKILL.md files in the same pass."""

    def __call__(self, *, cold: bool) -> Awaitable[Sequence[ListedDocument]]:
        """List the backend."""


CacheOption = CatalogCache | bool | str | os.PathLike[str]
"""What every ``cache=`` takes: ``True`` for the default folder, ``False`` for none, a
:class:`CatalogCache`, or the path of a cache folder."""


def cache_link(
    cache: CacheOption,
    backend: Backend,
    *,
    strict: bool,
    limits: Limits,
    format_limits: FormatLimits,
) -> CacheLink | None:
    """The link a catalog uses, or ``None``.

    ``None`` without a cache, or for a backend whose fingerprints mean nothing to another
    process (memory: a version counter per instance).

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
    return CacheLink(folder, backend, strict=strict, limits=limits, format_limits=format_limits)


def _fingerprints_outlive_the_process(backend: Backend) -> bool:
    if isinstance(backend, CompositeBackend):
        return all(map(_fingerprints_outlive_the_process, backend.backends))
    return not isinstance(backend, MemoryBackend) and not backend.location.startswith("memory:")


class CacheLink:
    """Loads and saves one catalog's entries in ``cache``.

    Args:
        cache: The cache folder's catalog file.
        backend: The catalog's backend.
        strict: The catalog's ``strict``.
        limits: The catalog's ``Limits``.
        format_limits: The catalog's ``FormatLimits``.
    """

    def __init__(
        self,
        cache: CatalogCache,
        backend: Backend,
        *,
        strict: bool,
        limits: Limits,
        format_limits: FormatLimits,
    ):
        self.cache = cache
        """The cache folder's catalog file (also where signed indexes' sequences are kept)."""
        self._backend = backend
        self._source = backend.location
        self._judged_by = (
            SCHEMA,
            type(backend).__qualname__,
            strict,
            repr(limits),
            repr(format_limits),
        )
        default = limits == DEFAULT_LIMITS and format_limits == DEFAULT_FORMAT_LIMITS
        self._judged = ("strict" if strict else "lenient") + ("" if default else " +limits")
        self._settings = ""
        self._saved: dict[str, tuple[CatalogEntry, bytes]] = {}
        self._state: bytes | None = None  # the backend's, as saved or loaded

    async def seed(
        self, listing: Listing, files: FileDigests, lock: SkillLock | None = None
    ) -> tuple[CatalogSnapshot, Sequence[ListedDocument]]:
        """The snapshot saved for this source (or an empty one), and the backend's listing.

        ``files`` gets the file digests saved with the snapshot. When the cache holds the
        source, as judged by this catalog (with ``lock``, when it has one), the backend is given
        its saved state and the listing reads nothing; otherwise it is a cold one.
        """
        read = await self._guarded(functools.partial(self._read, files, lock), None)
        if read is None:
            return EMPTY_SNAPSHOT, await listing(cold=True)
        self._state, seed = read
        import_state(self._backend, self._state)
        return seed, await listing(cold=False)

    async def save(
        self, snapshot: CatalogSnapshot, files: FileDigests, *, seeded_from: CatalogSnapshot
    ) -> None:
        """Save ``snapshot``'s entries and ``files``, unless both are as seeded (or saved).

        The backend's state is saved with them, or alone when only it changed.
        """
        state = export_state(self._backend)
        if snapshot is not seeded_from or files.unsaved:
            save = functools.partial(self._save, snapshot.entries, files.to_save(), state)
            await self._guarded(save, None)
        elif state != self._state and self._settings:
            save = functools.partial(self.cache.save_state, self._source, self._settings, state)
            await self._guarded(save, None)
        self._state = state

    async def _guarded(self, work: Callable[[], _T], failed: _T) -> _T:
        """``work()`` in a worker thread; ``failed`` if it raises (a cache is never fatal)."""
        try:
            return await asyncio.to_thread(work)
        except Exception:
            logger.warning("%s: went without the catalog cache", self._source, exc_info=True)
            return failed

    def _read(
        self, files: FileDigests, lock: SkillLock | None
    ) -> tuple[bytes | None, CatalogSnapshot] | None:
        """The backend's state saved for this source and the snapshot of its entries, if any."""
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
            self._source, self._settings, data, len(verdicts), judged=self._judged, state=state
        )


@functools.cache
def _settings_digest(judged_by: tuple[object, ...]) -> str:
    """A digest of what decides a verdict, and of the code that judges (blocking).

    The code is known by the size and modification time of every module that lists, parses or
    judges (about 80 stats, 0.5 ms): another skillfs version, or a local edit, never reuses
    entries judged by this one. (Asking the installed distribution's version costs 17 ms.)
    """
    stamp = [
        (str(path.relative_to(_PACKAGES)), info.st_size, info.st_mtime_ns)
        for folder in _JUDGING_CODE
        for path in sorted(folder.rglob("*.py"))
        for info in (path.stat(),)
    ]
    return hashlib.sha256(repr((stamp, *judged_by)).encode()).hexdigest()[:32]


_PACKAGES = Path(__file__).parents[2]
_JUDGING_CODE = (
    _PACKAGES / "backends",
    _PACKAGES / "skills_core" / "format",
    _PACKAGES / "skills_core" / "trust",
    Path(__file__).parent,
)
