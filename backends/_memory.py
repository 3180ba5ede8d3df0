"""Skills held in memory by one backend instance (never fsspec's process-global store)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from backends._base import AsyncResource, FileEntry, SkillDocument, SkillRef
from backends._errors import ResourceNotFoundError, SkillNotFoundError
from backends._limits import DEFAULT_LIMITS, check_size
from backends._paths import (
    check_relative_path,
    check_resource_path,
    check_skill_name,
    is_hidden,
    skill_md_name,
)


@dataclass(frozen=True, slots=True)
class _StoredSkill:
    version: int
    files: Mapping[str, bytes]

    @property
    def skill_md(self) -> str | None:
        return skill_md_name(self.files)


class MemoryBackend(AsyncResource):
    """An in-memory store of ``{name: {path: content}}``; each :meth:`put` bumps the fingerprint."""

    def __init__(self, skills: Mapping[str, Mapping[str, bytes | str]] | None = None) -> None:
        self._skills: dict[str, _StoredSkill] = {}
        self._versions = itertools.count(1)
        for name, files in (skills or {}).items():
            self.put(name, files)

    def __repr__(self) -> str:
        return f"MemoryBackend({len(self._skills)} skills)"

    @property
    def location(self) -> str:
        """A label for messages: ``memory://``."""
        return "memory://"

    def put(self, name: str, files: Mapping[str, bytes | str]) -> None:
        """Create or replace a whole skill folder; ``str`` contents are stored as UTF-8."""
        check_skill_name(name)
        stored = {
            check_relative_path(path): data.encode() if isinstance(data, str) else bytes(data)
            for path, data in files.items()
        }
        self._skills[name] = _StoredSkill(next(self._versions), MappingProxyType(stored))

    def remove(self, name: str) -> None:
        """Delete a skill folder (SkillNotFoundError when there is none)."""
        if self._skills.pop(name, None) is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self.location)

    async def list(self) -> Sequence[SkillRef]:
        """List the skills that hold a SKILL.md, sorted by name."""
        refs = []
        for name in sorted(self._skills):
            stored = self._skills[name]
            skill_md = stored.skill_md
            if skill_md is not None:
                location = self._location(name, skill_md)
                size = len(stored.files[skill_md])
                refs.append(SkillRef(name, f"v{stored.version}", location, size=size))
        return refs

    async def get(self, name: str) -> SkillDocument:
        """Return one SKILL.md."""
        stored, skill_md = self._lookup(name)
        location = self._location(name, skill_md)
        return SkillDocument(name, stored.files[skill_md], f"v{stored.version}", location)

    async def files(self, name: str) -> Sequence[FileEntry]:
        """List a skill's visible files."""
        stored, _ = self._lookup(name)
        return [
            FileEntry(path, len(data), f"v{stored.version}")
            for path, data in sorted(stored.files.items())
            if not is_hidden(path)
        ]

    async def read(
        self, name: str, path: str, *, max_bytes: int = DEFAULT_LIMITS.max_read_bytes
    ) -> bytes:
        """Return one file of a skill."""
        stored, _ = self._lookup(name)
        relative = check_resource_path(path, location=self._location(name, ""))
        location = self._location(name, relative)
        data = stored.files.get(relative)
        if data is None:
            raise ResourceNotFoundError("no such file", location=location)
        check_size(len(data), max_bytes, location=location)
        return data

    async def aclose(self) -> None:
        """Nothing to release: the store lives as long as the instance."""

    def _lookup(self, name: str) -> tuple[_StoredSkill, str]:
        stored = self._skills.get(check_skill_name(name))
        skill_md = stored.skill_md if stored else None
        if stored is None or skill_md is None:
            raise SkillNotFoundError(f"no skill named {name!r}", location=self.location)
        return stored, skill_md

    def _location(self, name: str, relative: str) -> str:
        return f"{self.location}{name}/{relative}"
