"""Catalog entries to bytes and back, for the persistent cache; nothing else comes back.

Entries are written by column (every entry's name, then every fingerprint, …, and each
metadata field of the loaded ones), so a new process rebuilds 10,000 entries in C loops
(``zip`` and ``map(tuple.__new__, …)``) instead of a Python call per entry: that decode is
most of what a warm restart costs beyond a no-change refresh.

A column holding one value throughout (``None``, ``()``) is written as that value and a
count; a column of unsigned 64-bit integers (body offsets) as their bytes, read back by
:mod:`array` in C; any other column of plain values (strings, numbers, tuples and dicts of
them) with :mod:`marshal`; any other column (problems, hooks, frontmatter values such as
dates) is pickled, and read back by an unpickler that builds only the types an entry is made
of: any other global in the data refuses the whole blob, so reading a cache never runs code.
A CRC-32 of the payload (in a plain header: the payload is read where it lies, not copied)
catches damage before either is read. The SKILL.md bytes are never written (their frontmatter
text is, for ``skillfs serve`` to publish as written); each skill's file digests
(:mod:`~skills_core.catalog.file_digests`) are, in a column of their own.
"""

from __future__ import annotations

import array
import contextlib
import datetime
import gc
import io
import itertools
import marshal
import operator
import pickle
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeVar

from skills_core.catalog.entries import CatalogEntry, frontmatter_of
from skills_core.catalog.file_digests import FileDigest
from skills_core.format.matching import HookAction, HookRule, Hooks
from skills_core.format.models import EMPTY_MAPPING, SkillMetadata, SkillProblem

_FORMAT = b"skillfs-entries-5"
_CRC_BYTES = 4
_MAPPINGS = frozenset({"metadata", "extra"})
"""Metadata fields held as read-only mappings (empty ones share ``EMPTY_MAPPING``, and are
written as ``None``: no dict to make and drop per skill)."""
_SHARED_VALUES = frozenset({"name", "license", "compatibility", "allowed_tools", "tags", "paths"})
"""Columns whose values repeat (a folder's name is its skill's too): each written once."""
_CONSTANTS = (None, (), True, False)
"""Values a whole column often holds (no skill has ``hooks``, none is refused): such a column
is written as the value and a count, and read back as a list of one object, without a decode
per value (a tenth of a 10,000-entry decode went to a dozen such columns)."""
_T = TypeVar("_T")


_ENTRY_FIELDS = tuple(field for field in CatalogEntry._fields if field not in ("metadata", "raw"))


def encode(
    entries: Mapping[str, CatalogEntry],
    digests: Sequence[bytes],
    files: Sequence[tuple[FileDigest, ...]],
) -> bytes:
    """``entries`` as bytes, with the hash of each one's SKILL.md and its file digests (in order).

    The SKILL.md bytes themselves are never written.
    """
    rows = list(entries.values())
    metas = [entry.metadata for entry in rows if entry.metadata is not None]
    shared: dict[object, object] = {}
    columns: Any = (
        {
            field: _column(
                digests
                if field == "digest"
                else [frontmatter_of(entry) if entry.loaded else "" for entry in rows]
                if field == "frontmatter"
                else list(map(operator.attrgetter(field), rows)),
                shared if field in _SHARED_VALUES else None,
            )
            for field in _ENTRY_FIELDS
        },
        _column([entry.metadata is not None for entry in rows]),
        {
            field: _column(
                _field(metas, field, shared), shared if field in _SHARED_VALUES else None
            )
            for field in SkillMetadata._fields
        },
        _column(files),
    )
    return framed(marshal.dumps(columns))


def framed(payload: bytes) -> bytes:
    """``payload`` behind the format's name and the payload's CRC-32, as :func:`decode` reads.

    Plain bytes, not a marshalled tuple: a new process checks and decodes the payload where
    it lies, without copying its megabytes first.
    """
    return _FORMAT + zlib.crc32(payload).to_bytes(_CRC_BYTES, "big") + payload


def _field(
    metas: Sequence[SkillMetadata], field: str, shared: dict[object, object]
) -> list[object]:
    """One metadata field of every loaded skill, mappings as plain dicts (``None`` if empty)."""
    values = map(operator.attrgetter(field), metas)
    if field not in _MAPPINGS:
        return list(values)
    return [_plain_mapping(value, shared) if value else None for value in values]


def _plain_mapping(mapping: Mapping[Any, Any], shared: dict[object, object]) -> dict[Any, Any]:
    """``mapping`` as a dict whose string keys and values are ``shared``'s copies.

    Skills repeat the keys of their ``metadata`` (``author``, ``version``) and many values:
    :mod:`marshal` then writes each string once, and a new process makes it once.
    """
    return {
        (shared.setdefault(key, key) if type(key) is str else key): (
            shared.setdefault(value, value) if type(value) is str else value
        )
        for key, value in mapping.items()
    }


Decoded = tuple[dict[str, CatalogEntry], dict[str, tuple[FileDigest, ...]]]
"""The entries :func:`encode` wrote, and the file digests of those that have some, by folder."""


def decode(data: bytes) -> Decoded:
    """The entries and file digests :func:`encode` wrote, by folder.

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
    entry_columns, loaded_column, meta_columns, files_column = marshal.loads(view[start:])
    names = _values(entry_columns["name"])
    loaded = _values(loaded_column, len(names))
    served = sum(loaded)
    meta_values = {field: _values(meta_columns[field], served) for field in SkillMetadata._fields}
    for field in _MAPPINGS:
        mappings = meta_values[field]
        meta_values[field] = (
            [MappingProxyType(d) if d else EMPTY_MAPPING for d in mappings]
            if any(mappings)
            else [EMPTY_MAPPING] * len(mappings)  # no skill has one (``extra``, usually)
        )
    metas = iter(_rows(SkillMetadata, meta_values.values()))
    columns = {field: _values(entry_columns[field], len(names)) for field in _ENTRY_FIELDS}
    columns["name"] = names
    columns["metadata"] = (
        list(metas) if all(loaded) else [next(metas) if flag else None for flag in loaded]
    )
    columns["raw"] = [b""] * len(loaded)
    if next(metas, None) is not None:
        raise ValueError("more metadata than loaded entries")
    entries = _rows(CatalogEntry, (columns[field] for field in CatalogEntry._fields))
    files = zip(names, _values(files_column, len(names)), strict=True)
    digested = {} if files_column[0] == "same" else {name: kept for name, kept in files if kept}
    return dict(zip(names, entries, strict=True)), digested


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a decode allocates ~17 objects per entry.

    Those objects hold no cycles and live as long as the catalog, yet their number sets off
    collections that examine them: a third of the decode (8 ms at 10,000 skills), then as much
    again while the refresh goes on. So the collector is paused, and what was made is moved
    to the oldest generation unexamined (``gc.freeze()`` then ``gc.unfreeze()``), unless
    something froze objects on purpose (a server before forking). Left paused if something
    else paused it.
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


def _column(
    values: Sequence[object], shared: dict[object, object] | None = None
) -> tuple[str, object]:
    """One column, written the cheapest way its values allow (see the module docstring).

    With ``shared``, equal values (a license, the same ``allowed-tools``, a folder's name that
    is also its skill's) become one object: :mod:`marshal` writes it once, and a new process
    decodes, and holds, one object for them.
    """
    items: Any = values
    if values and any(values[0] is constant for constant in _CONSTANTS):
        first = values[0]
        if all(value is first for value in values):
            return "same", first
    if all(type(value) is int for value in values):
        with contextlib.suppress(OverflowError):  # a negative or wider one: marshalled
            return "u64", _little_endian(array.array("Q", items)).tobytes()
    if shared is not None:
        with contextlib.suppress(TypeError):  # an unhashable value: the column as it is
            items = list(map(shared.setdefault, values, values))
    try:
        marshal.dumps(items)
    except ValueError:
        buffer = io.BytesIO()
        _Pickler(buffer, 5).dump(items)
        return "pickle", buffer.getvalue()
    return "marshal", items


def _values(column: tuple[str, Any], rows: int = 0) -> Sequence[Any]:
    """A column's values; a column of one value holds it ``rows`` times."""
    kind, items = column
    if kind == "marshal" and isinstance(items, list):
        return items
    if kind == "same" and any(items is constant for constant in _CONSTANTS):
        return [items] * rows
    if kind == "u64" and isinstance(items, bytes):
        return _little_endian(array.array("Q", items)).tolist()
    if kind == "pickle" and isinstance(items, bytes):
        found = _Unpickler(io.BytesIO(items)).load()
        if isinstance(found, list):
            return found
    raise ValueError(f"a column of unknown kind {kind!r}")


def _little_endian(numbers: array.array[int]) -> array.array[int]:
    """``numbers`` in little-endian order (swapped in place on a big-endian machine)."""
    if sys.byteorder == "big":
        numbers.byteswap()
    return numbers


def _mapping(items: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only mapping (what frontmatter mappings are) from its items."""
    return MappingProxyType(items)


def _hooks(rules: dict[str, tuple[HookRule, ...]], raw: dict[str, Any]) -> Hooks:
    return Hooks(rules, raw)


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
    def persistent_id(self, obj: object) -> str | None:
        return "empty" if obj is EMPTY_MAPPING else None

    def reducer_override(self, obj: object) -> Any:
        if isinstance(obj, MappingProxyType):
            return _mapping, (dict(obj),)
        if isinstance(obj, Hooks):
            return _hooks, (dict(obj), dict(obj.raw))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a catalog entry")
        return found

    def persistent_load(self, pid: Any) -> Any:
        if pid != "empty":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return EMPTY_MAPPING
