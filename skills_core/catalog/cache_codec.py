"""Catalog entries to bytes and back, for the persistent cache; nothing else comes back.

Entries are pickled (the fastest way back to the named tuples a catalog holds: about 1 µs a
skill) without their SKILL.md bytes, and unpickled by an unpickler that builds only the types an
entry is made of: any other global in the data (a corrupt or planted file) refuses the whole
blob with :class:`ValueError`, so reading a cache can never run code. ``EMPTY_MAPPING`` comes
back as the shared object it was, so seeded entries cost the memory fresh ones do.
"""

from __future__ import annotations

import copyreg
import datetime
import io
import pickle
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from skills_core.catalog.entries import CatalogEntry
from skills_core.format.hooks import HookAction, HookRule, Hooks
from skills_core.format.models import EMPTY_MAPPING, SkillMetadata
from skills_core.format.problems import SkillProblem

_EMPTY = "empty"
_PROTOCOL = 5


def _mapping(items: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only mapping (what frontmatter mappings are) from its items."""
    return MappingProxyType(items)


def _hooks(rules: dict[str, tuple[HookRule, ...]], raw: dict[str, Any]) -> Hooks:
    return Hooks(rules, raw)


_ALLOWED: dict[tuple[str, str], object] = {
    (kind.__module__, kind.__qualname__): kind
    for kind in (
        CatalogEntry,
        SkillMetadata,
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


_REDUCERS: dict[type, Callable[[Any], Any]] = {
    **copyreg.dispatch_table,
    MappingProxyType: lambda proxy: (_mapping, (dict(proxy),)),
    Hooks: lambda hooks: (_hooks, (dict(hooks), dict(hooks.raw))),
}


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, _PROTOCOL)
        self.dispatch_table = _REDUCERS

    def persistent_id(self, obj: object) -> str | None:
        return _EMPTY if obj is EMPTY_MAPPING else None


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a catalog entry")
        return found

    def persistent_load(self, pid: Any) -> Any:
        if pid != _EMPTY:
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return EMPTY_MAPPING


def encode(entries: Mapping[str, CatalogEntry]) -> bytes:
    """``entries`` (already without their SKILL.md bytes) as bytes."""
    buffer = io.BytesIO()
    _Pickler(buffer).dump(list(entries.values()))
    return buffer.getvalue()


def decode(data: bytes) -> dict[str, CatalogEntry]:
    """The entries :func:`encode` wrote, by folder.

    Raises:
        ValueError: ``data`` is not what :func:`encode` writes.
    """
    try:
        entries = _Unpickler(io.BytesIO(data)).load()
    except Exception as exc:  # any damage: truncated, corrupt, foreign
        raise ValueError(f"not a cached catalog ({type(exc).__name__}: {exc})") from exc
    if not isinstance(entries, list) or not all(isinstance(e, CatalogEntry) for e in entries):
        raise ValueError("not a cached catalog (unexpected content)")
    return {entry.name: entry for entry in entries}
