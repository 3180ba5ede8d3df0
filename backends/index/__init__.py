"""The agentskills.io well-known skills index: reading it (over HTTP or from any store).

Modules, one concern each: :mod:`~backends.index.document` (the index's JSON, read and
written), :mod:`~backends.index.artifact` (a skill's verified, screened artifact),
:mod:`~backends.index.reader` (the backend over any transport), :mod:`~backends.index.http`
(HTTP(S) with conditional GETs) and :mod:`~backends.index.store` (any fsspec store, used by
``FsspecBackend`` when a folder holds a published index).

The public names are imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from backends.index.http import HttpIndexBackend
    from backends.index.reader import IndexBackend

_EXPORTS = {
    "HttpIndexBackend": "backends.index.http",
    "IndexBackend": "backends.index.reader",
}

__all__ = ["HttpIndexBackend", "IndexBackend"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'backends.index' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
