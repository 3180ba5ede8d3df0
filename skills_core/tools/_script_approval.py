"""ScriptApprovals: whether a skill's scripts may run as far as trust goes, and recording a yes.

A skill whose source withholds ``scripts`` (MCP, a cloned project) runs none until the user
approved its content in the catalog's trust policy's ``approvals``; the digest checked is that
of the private copy that runs, and each check reads the store again (docs/trust.md, "Approvals").
"""

from __future__ import annotations

import asyncio
import os
import shlex

from backends._digests import skill_digest
from backends.capabilities import local_folder, provenance_of
from skills_core._catalog.catalog import SkillCatalog
from skills_core._codes import SCRIPT_NOT_APPROVED
from skills_core._trust.policy import SCRIPTS, withheld_fields
from skills_core.tools._results import ToolResult, tool_error


class ScriptApprovals:
    """Trust in one catalog's scripts, kept in its trust policy's ``approvals`` (if any)."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog
        self._store = catalog.trust.approvals
        self._provenance = provenance_of(catalog.backend)

    @property
    def kept(self) -> bool:
        """Whether approvals are kept anywhere: without a store none is granted or recorded."""
        return self._store is not None

    @property
    def gating(self) -> bool:
        """Whether the catalog's source may withhold scripts (MCP, a cloned project's skills)."""
        return self._provenance is not None

    def gated(self, skill_name: str) -> bool:
        """Whether the skill's scripts run only once the user approved the content that runs."""
        return self._reason(skill_name) is not None

    async def refusal(
        self, skill_name: str, digest: str | None, *, what: str = "its scripts"
    ) -> ToolResult | None:
        """``None`` when the skill's scripts may run; else a ``SCRIPT_NOT_APPROVED`` error.

        ``digest`` is the content that would run (``None`` if unknown); ``what``, for the message.

        Raises:
            SkillNotFoundError: The catalog holds no such skill.
        """
        reason = self._reason(skill_name)
        if reason is None or (digest is not None and await self.granted(skill_name, digest)):
            return None
        command = _approve_command(
            (await approval_source(self._catalog, skill_name))[0], skill_name
        )
        message = (
            f"skill {skill_name!r} may not run {what}: {reason}; the user can approve "
            f"this content with: {command}"
        )
        return tool_error(SCRIPT_NOT_APPROVED, message)

    async def approve(self, skill_name: str, digest: str | None = None) -> None:
        """Record that the user approved running the scripts of content ``digest``.

        By default the current content; an adapter passes the digest of what it asked about.
        """
        if self._store is not None:
            digest = digest or await self.digest(skill_name)
            where, bound_to = await approval_source(self._catalog, skill_name)
            await asyncio.to_thread(
                self._store.approve, digest, name=skill_name, source=bound_to or where, scripts=True
            )

    def _reason(self, skill_name: str) -> str | None:
        if self._provenance is None:
            return None
        provenance = self._provenance(self._catalog.folder(skill_name))
        return withheld_fields(provenance, frozenset()).get(SCRIPTS)

    async def granted(self, skill_name: str, digest: str) -> bool:
        """Whether the user approved running the scripts of content ``digest`` of the skill."""
        store = self._store
        if store is None:
            return False
        await asyncio.to_thread(store.reload)
        found = store.granted(digest)
        if found is None or not found.scripts:
            return False
        bound_to = (await approval_source(self._catalog, skill_name))[1]
        return bound_to is None or found.source == bound_to

    async def digest(self, skill_name: str) -> str:
        """The digest of every file of the skill's current content."""
        return await skill_digest(self._catalog.backend, self._catalog.folder(skill_name))


async def approval_source(catalog: SkillCatalog, skill_name: str) -> tuple[str, str | None]:
    """Where ``skillfs approve`` finds a skill, and what an approval of it is bound to.

    A local skill: its parent folder, bound to nothing. Any other: its source's URL, bound to
    its location (``mcp[<label>]:<uri>``), which an approval must record to count.
    """
    backend = catalog.backend
    folder = await local_folder(backend, catalog.folder(skill_name))
    if folder is not None:
        return os.path.dirname(folder), None
    url = getattr(backend, "url", None)  # where the location is no URL (MCP)
    location = catalog.snapshot.loaded[skill_name].location
    return (url if isinstance(url, str) else backend.location), location


def _approve_command(source: str, name: str) -> str:
    """The ``skillfs approve`` command for skill ``name`` of ``source``, safe to paste in a shell.

    An argument holding a character that is not printable is written in ANSI-C quoting.
    """
    return f"skillfs approve {_shell_word(source)} {_shell_word(name)} --scripts"


def _shell_word(text: str) -> str:
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(map(_ansi_c, text)) + "'"


def _ansi_c(char: str) -> str:
    if char in "\\'":
        return "\\" + char
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
