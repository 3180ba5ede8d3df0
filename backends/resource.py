"""``async with`` for everything that has an ``aclose()``, in anyio's ``AsyncResource`` shape."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Self


class AsyncResource(ABC):
    """Base of every backend: ``async with backend:`` calls :meth:`aclose` on the way out.

    ``__aenter__`` returns the object itself; ``__aexit__`` closes it and lets any exception
    through. Subclasses implement :meth:`aclose` only.
    """

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    @abstractmethod
    async def aclose(self) -> None:
        """Release connections and other resources; the object is not used afterwards."""
