"""Values made from a catalog once and kept exactly as long as it: its search indexes.

A module-level ``WeakKeyDictionary`` from catalogs to their indexes does not do: the index
holds its catalog, so the entry keeps its own key alive and no catalog searched once is ever
freed. Kept on the catalog, the index and the catalog form a cycle the garbage collector frees
together.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

T = TypeVar("T")


class Attachable:
    """Gives an object :meth:`attached` values."""

    def attached(self, key: Hashable, make: Callable[[], T]) -> T:
        """The value kept under ``key``, made by ``make()`` the first time it is asked for.

        Two threads asking at once may both make one; the first kept is the one every caller
        gets.
        """
        values: dict[Hashable, Any] = self.__dict__.setdefault("_attached", {})
        value = values.get(key)
        if value is None:
            value = values.setdefault(key, make())
        return cast(T, value)
