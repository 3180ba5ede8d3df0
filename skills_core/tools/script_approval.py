"""ScriptApprovals: whether a skill's scripts may run as far as trust goes, and recording a yes.

A skill whose source withholds ``scripts`` (a cloned project's skills, see
:class:`backends.untrusted.UntrustedFolder`) runs none until the user approved its current
content in the policy's :class:`~skills_core.catalog.approvals.ApprovalStore` (``skillfs
approve NAME --scripts``, or a confirmation in an adapter with a confirmation flow). Each check
reads the store again (approvals given by other processes count) and digests every file of
the skill, so a script changed since the approval is refused.
"""

from __future__ import annotations

import asyncio

from backends.capabilities import withheld_fields_of
from backends.digests import skill_digest
from skills_core.catalog.approvals import ApprovalStore
from skills_core.catalog.catalog import SkillCatalog
from skills_core.codes import SCRIPT_NOT_APPROVED
from skills_core.tools.results import ToolResult, tool_error

SCRIPTS = "scripts"
"""The withheld field that says a skill's source grants it no scripts."""


class ScriptApprovals:
    """Trust in one catalog's scripts, kept in ``store`` (``None``: nothing is approved)."""

    def __init__(self, catalog: SkillCatalog, store: ApprovalStore | None) -> None:
        self._catalog = catalog
        self._store = store
        self._withheld_of = withheld_fields_of(catalog.backend)

    async def refusal(self, skill_name: str) -> ToolResult | None:
        """``None`` when the skill's scripts may run; else a ``SCRIPT_NOT_APPROVED`` error."""
        ask = self._withheld_of
        reason = ask(self._catalog.folder(skill_name)).get(SCRIPTS) if ask is not None else None
        if reason is None or await self.approved(skill_name):
            return None
        message = (
            f"skill {skill_name!r} may not run its scripts: {reason}; the user can approve "
            f"this content with: skillfs approve {skill_name} --scripts"
        )
        return tool_error(SCRIPT_NOT_APPROVED, message)

    async def approved(self, skill_name: str) -> bool:
        """Whether the user approved running the scripts of the skill's current content."""
        store = self._store
        if store is None:
            return False
        digest = await self._digest(skill_name)
        await asyncio.to_thread(store.reload)
        found = store.granted(digest)
        return found is not None and found.scripts

    async def approve(self, skill_name: str) -> None:
        """Record that the user approved running the scripts of the skill's current content."""
        if self._store is not None:
            digest = await self._digest(skill_name)
            source = self._catalog.backend.location
            await asyncio.to_thread(
                self._store.approve, digest, name=skill_name, source=source, scripts=True
            )

    async def _digest(self, skill_name: str) -> str:
        return await skill_digest(self._catalog.backend, self._catalog.folder(skill_name))
