"""UntrustedFolder: a local skills folder whose skills are trusted with nothing until approved.

A repository a user cloned may bring skills (``.agents/skills``). As agentskills.io's client
guide advises for project-level skills, they are served but grant nothing: their
``allowed-tools`` widen no tool use (they still restrict, see
:meth:`skills_core.catalog.catalog.SkillCatalog.restricting_tools`) and their scripts do not
run, each until the user approves that content (``skillfs approve NAME --tools --scripts``).
The skills withhold both as fields (:class:`backends.capabilities.WithheldFields`):
``allowed-tools`` and ``scripts``. With an ``approved`` callable, a listing learns each skill's
content digest (:func:`backends.digests.skill_digest`), reading the files of a skill only when
its file list (paths, sizes, fingerprints) changed since the last listing, and gives back
``allowed-tools`` where that content is approved. ``scripts`` stays withheld whatever
the listing found: whether a script runs is decided when it runs, against the digest of the
very bytes that run (:mod:`skills_core.tools.script_approval`), never against a listing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType

from backends.base import FileEntry, SkillRef
from backends.capabilities import ListedDocument
from backends.digests import skill_digest
from backends.errors import StorageError
from backends.local import LocalBackend

Approved = Callable[[str], Collection[str]]
"""From a skill's content digest, what the user approved: ``scripts``, ``allowed-tools``."""

GRANTS = ("allowed-tools", "scripts")
"""What an untrusted skill withholds until approved."""


class UntrustedFolder(LocalBackend):
    """A :class:`LocalBackend` whose skills withhold :data:`GRANTS` unless approved.

    Args:
        root: The skills folder.
        approved: What the user approved for a content digest (``ApprovalStore().grants_of``);
            ``None``: nothing is approved.
        reason: Why the grants are withheld, shown in each ``FIELD_WITHHELD`` warning.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        approved: Approved | None = None,
        reason: str = "project skills grant nothing until the user approves them (skillfs approve)",
    ) -> None:
        super().__init__(root)
        self._approved = approved
        self._withheld = MappingProxyType(dict.fromkeys(GRANTS, reason))
        self._digests: dict[str, str] = {}
        self._learned: dict[str, tuple[tuple[FileEntry, ...], str]] = {}  # name: (files, digest)

    async def list(self) -> Sequence[SkillRef]:
        """The folder's listing, with the content digest of each skill learned."""
        refs = await super().list()
        await self._learn(refs)
        return refs

    async def list_documents(self, *, max_bytes: int) -> Sequence[ListedDocument]:
        """The one-pass listing, with the content digest of each skill learned."""
        listed = await super().list_documents(max_bytes=max_bytes)
        await self._learn(listed)
        return listed

    def withheld_fields(self, name: str) -> Mapping[str, str]:
        """:data:`GRANTS` but ``allowed-tools`` if approved for the content as last listed."""
        digest = self._digests.get(name)
        if self._approved is None or digest is None:
            return self._withheld
        granted = set(self._approved(digest)) - {"scripts"}  # judged at each run instead
        return {key: reason for key, reason in self._withheld.items() if key not in granted}

    async def _learn(self, listed: Sequence[ListedDocument]) -> None:
        if self._approved is None:
            return
        learned: dict[str, tuple[tuple[FileEntry, ...], str]] = {}
        for item in listed:
            with contextlib.suppress(StorageError):  # an unreadable skill stays unapproved
                files = tuple(await self.files(item.name))
                known = self._learned.get(item.name)
                digest = known[1] if known and known[0] == files else None
                learned[item.name] = files, digest or await skill_digest(self, item.name)
        self._learned = learned
        self._digests = {name: digest for name, (_, digest) in learned.items()}
