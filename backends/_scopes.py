"""The skill folders of a project and of its user, as agentskills.io's client guide scans them.

Project skills override user skills; within a scope ``.agents/skills/`` overrides
``.claude/skills/``. Unless trusted, the project's skills are an
:class:`UntrustedFolder`'s: their skills report :data:`~backends.capabilities.PROJECT`, which a
catalog's trust policy grants nothing until the user approves their content.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from backends._base import Backend, SkillRef
from backends._composite import CompositeBackend
from backends._local import LocalBackend
from backends._memory import MemoryBackend
from backends.capabilities import PROJECT, Provenance

logger = logging.getLogger("skillfs")

SKILL_FOLDERS = (".agents/skills", ".claude/skills")  # highest precedence first

_PROJECT = Provenance(PROJECT)


class UntrustedFolder(LocalBackend):
    """A :class:`LocalBackend` whose skills report :data:`~backends.capabilities.PROJECT`."""

    def provenance(self, name: str) -> Provenance:
        """Every skill comes from the project."""
        del name
        return _PROJECT


class ProjectSkills(CompositeBackend):
    """Skill folders (``(scope, path)``, by precedence) merged; each shadowing logged once."""

    def __init__(
        self,
        folders: Sequence[tuple[str, str]],
        *,
        project: str,
        trusted: bool = False,
    ) -> None:
        members: list[Backend] = [
            LocalBackend(path) if trusted or scope != "project" else UntrustedFolder(path)
            for scope, path in folders
        ]
        super().__init__(members or [MemoryBackend()])
        self.folders = tuple(folders)  # (scope, path), highest precedence first
        self._project = project
        self._logged: set[tuple[str, str]] = set()

    @property
    def location(self) -> str:
        """The folders' paths joined by `` + ``, or the project when it has none."""
        if not self.folders:
            return f"{self._project} (no skill folders)"
        return super().location

    async def list(self) -> Sequence[SkillRef]:
        """List every folder and merge; log skills shadowed since the last listing."""
        refs = await super().list()
        for ref in refs:
            for shadowed in ref.shadows:
                if (ref.name, shadowed) not in self._logged:
                    self._logged.add((ref.name, shadowed))
                    logger.warning(
                        "skill %r at %s is shadowed by %s", ref.name, shadowed, ref.location
                    )
        return refs


async def project_backend(
    project: str | os.PathLike[str] = ".",
    *,
    home: str | os.PathLike[str] | None = None,
    trusted: bool = False,
) -> ProjectSkills:
    """The skills of ``project`` and of the user (``home``) that exist now, by precedence.

    Unless ``trusted``, the project's skills grant nothing until the user approves them.
    """
    found, project_root = await asyncio.to_thread(_skill_folders, project, home)
    return ProjectSkills(found, project=project_root, trusted=trusted)


def _skill_folders(
    project: str | os.PathLike[str], home: str | os.PathLike[str] | None
) -> tuple[list[tuple[str, str]], str]:
    project_root = os.path.abspath(project)
    user_root = os.path.abspath(home) if home is not None else str(Path.home())
    found: list[tuple[str, str]] = []
    scopes = [("project", project_root)] if project_root != user_root else []
    for scope, root in [*scopes, ("user", user_root)]:  # a project in the home is the user's
        for folder in SKILL_FOLDERS:
            path = os.path.join(root, *folder.split("/"))
            if os.path.isdir(path) and all(path != seen for _, seen in found):
                found.append((scope, path))  # a project in the home folder is seen once
    return found, project_root
