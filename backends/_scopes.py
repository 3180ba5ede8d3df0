"""The skill folders of a project and of its user, as agentskills.io's client guide scans them.

The guide's convention: project-level skills override user-level ones, and within each scope
skills live in the cross-client ``.agents/skills/`` folder or in a client's own folder
(``.claude/skills/`` holds many existing skills). :func:`project_backend` finds the folders
that exist and merges them in that precedence as one :class:`ProjectSkills` backend, which
logs each skill a higher-precedence folder shadows.

The project's own skills come from a repository the user may just have cloned: unless the
project is trusted, they are served as :class:`~backends._untrusted.UntrustedFolder` skills,
whose ``allowed-tools`` and scripts wait for the user's approval of their content (a catalog's
:class:`~skills_core._trust.policy.TrustPolicy` ``approvals``).
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
from backends._untrusted import UntrustedFolder

logger = logging.getLogger("skillfs")

SKILL_FOLDERS = (".agents/skills", ".claude/skills")
"""Where skills live inside a scope's base folder, highest precedence first."""


class ProjectSkills(CompositeBackend):
    """Skill folders merged by precedence, each shadowed skill logged once as a warning.

    Args:
        folders: ``(scope, path)`` of every skill folder, highest precedence first.
        project: The project folder.
        trusted: Trust the ``project`` scope's skills as the user's own; else they grant
            nothing until approved (see :class:`~backends._untrusted.UntrustedFolder`).
    """

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
        self._folders = tuple(folders)
        self._project = project
        self._logged: set[tuple[str, str]] = set()

    @property
    def location(self) -> str:
        """The folders' paths joined by `` + ``, or the project when it has none."""
        if not self._folders:
            return f"{self._project} (no skill folders)"
        return super().location

    @property
    def folders(self) -> tuple[tuple[str, str], ...]:
        """``(scope, path)`` of every folder found, highest precedence first."""
        return self._folders

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
    """The skills of ``project`` and of the user, in the client guide's precedence.

    Scans, first match winning a name clash: ``<project>/.agents/skills``,
    ``<project>/.claude/skills``, ``~/.agents/skills``, ``~/.claude/skills``. Folders that do
    not exist when this runs are left out (the guide discovers skills at session start).

    Args:
        project: The project (working) folder.
        home: The user's home folder (default: ``Path.home()``).
        trusted: ``True`` trusts the project's own skills as the user's; by default (a freshly
            cloned repository) their ``allowed-tools`` grant nothing and their scripts do not
            run until the user approves their content.
    """
    found, project_root = await asyncio.to_thread(_skill_folders, project, home)
    return ProjectSkills(found, project=project_root, trusted=trusted)


def _skill_folders(
    project: str | os.PathLike[str], home: str | os.PathLike[str] | None
) -> tuple[list[tuple[str, str]], str]:
    """The folders that exist, highest precedence first, and the project's absolute path."""
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
