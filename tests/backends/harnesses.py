"""Harnesses that store the conformance tree where each built-in backend reads it."""

from __future__ import annotations

import asyncio
import shutil
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from backends import Backend, CompositeBackend, LocalBackend, MemoryBackend
from backends._errors import UnsafePathError
from backends.testing import BackendHarness, SymlinkHarness


class LocalHarness(SymlinkHarness):
    def __init__(self, root: Path) -> None:
        self.root = root

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        return LocalBackend(self.root)

    async def write(self, path: str, data: bytes) -> None:
        await asyncio.to_thread(self._write, path, data)

    def _write(self, path: str, data: bytes) -> None:
        # As editors save: a new file renamed over the old one (a new inode), so even a
        # same-size edit within one clock tick changes the fingerprint.
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = target.with_name(f".{target.name}.tmp")
        staged.write_bytes(data)
        staged.replace(target)

    async def delete_skill(self, name: str) -> None:
        await asyncio.to_thread(shutil.rmtree, self.root / name)

    async def symlink(self, path: str, target: str) -> None:
        await asyncio.to_thread(self._symlink, path, target)

    def _symlink(self, path: str, target: str) -> None:
        link = self.root / path
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)


class MemoryHarness(BackendHarness):
    def __init__(self) -> None:
        self.skills: dict[str, dict[str, bytes]] = defaultdict(dict)
        self.backend = MemoryBackend()

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        return self.backend

    async def write(self, path: str, data: bytes) -> None:
        name, _, relative = path.partition("/")
        self.skills[name][relative] = data
        try:
            self.backend.put(name, self.skills[name])
        except UnsafePathError:
            del self.skills[name]  # hidden folders cannot be stored in memory at all

    async def delete_skill(self, name: str) -> None:
        del self.skills[name]
        self.backend.remove(name)


class CompositeHarness(SymlinkHarness):
    """Half the skills in a high-precedence local folder, the rest in memory below it."""

    def __init__(self, root: Path) -> None:
        self.local = LocalHarness(root)
        self.memory = MemoryHarness()

    async def make_backend(self, tree: Mapping[str, bytes]) -> Backend:
        for path, data in tree.items():
            await self.write(path, data)
        return CompositeBackend([LocalBackend(self.local.root), self.memory.backend])

    def _member(self, path: str) -> BackendHarness:
        local = path.startswith(("alpha", "gamma", "delta", "."))
        return self.local if local else self.memory

    async def write(self, path: str, data: bytes) -> None:
        await self._member(path).write(path, data)

    async def delete_skill(self, name: str) -> None:
        await self._member(name).delete_skill(name)

    async def symlink(self, path: str, target: str) -> None:
        await self.local.symlink(path, target)
