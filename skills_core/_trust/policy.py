"""TrustPolicy: what a catalog trusts; and the decisions it makes from what backends report.

Backends report a skill's :class:`~backends.capabilities.Provenance` and never decide; what an
untrusted origin withholds until approved: docs/trust.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from backends._base import Backend, FileEntry
from backends._digests import skill_digest
from backends._errors import StorageError
from backends.capabilities import (
    MCP,
    PROJECT,
    ListedDocument,
    Provenance,
    provenance_of,
    require_signatures,
)
from skills_core._trust.approvals import ApprovalStore
from skills_core._trust.lock import SkillLock

if TYPE_CHECKING:
    from skills_core._trust.signing import SequenceMemory, TrustedKey

SCRIPTS = "scripts"
"""The withheld field that says a skill's source grants it no scripts."""
TOOLS = "allowed-tools"

_PROJECT_REASON = "project skills grant nothing until the user approves them (skillfs approve)"
_WITHHELD: Mapping[str, Mapping[str, str]] = {
    MCP: MappingProxyType(
        {
            TOOLS: "skills served over MCP grant no tools unless approved",
            SCRIPTS: "skills served over MCP run no script until the user approves its content",
        }
    ),
    PROJECT: MappingProxyType(dict.fromkeys((TOOLS, SCRIPTS), _PROJECT_REASON)),
}
"""What each origin withholds until approved, with why (shown in ``FIELD_WITHHELD`` warnings)."""
_NOTHING: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, eq=False)
class TrustPolicy:
    """What a catalog trusts, each part optional (docs/trust.md).

    A ``lock`` given as a path is read on the first refresh, which fails if it cannot be;
    ``keys`` (PEM bytes or Ed25519 public keys) for a source that reads no published index are
    refused when the catalog is made.
    """

    lock: SkillLock | str | os.PathLike[str] | None = None
    keys: Sequence[TrustedKey] = ()
    approvals: ApprovalStore | None = None


def withheld_fields(provenance: Provenance | None, granted: frozenset[str]) -> Mapping[str, str]:
    """What a skill of ``provenance`` withholds, with why, given what its content was ``granted``.

    ``scripts`` stays withheld from an untrusted origin: it is judged at each run.
    """
    if provenance is None:
        return _NOTHING
    withheld = _WITHHELD[provenance.origin]
    if TOOLS not in granted:
        return withheld
    return {key: reason for key, reason in withheld.items() if key != TOOLS}


class CatalogTrust:
    """One catalog's policy applied to its backend: the lock once read, what each skill withholds.

    ``sequences`` (the catalog's cache) remembers signed indexes' sequences across processes.

    Raises:
        UnsupportedSourceError: ``keys`` are given for a source that is no published index.
        SignatureError: A key is not an Ed25519 public key.
        MissingDependencyError: ``keys`` are given and cryptography is not (``skillfs[sign]``).
    """

    def __init__(
        self, policy: TrustPolicy, backend: Backend, sequences: SequenceMemory | None
    ) -> None:
        self.policy = policy
        given = policy.lock
        self.lock = given if isinstance(given, SkillLock) else None
        self._lock_file = None if given is None or isinstance(given, SkillLock) else given
        self._backend = backend
        self._provenance = provenance_of(backend)
        self._contents: dict[str, tuple[tuple[FileEntry, ...], str]] = {}  # by folder
        self.withheld_of: Callable[[str], Mapping[str, str]] | None = (
            None if self._provenance is None else self.withheld
        )
        """By folder, what a skill withholds; ``None`` when the backend reports no provenance."""
        if policy.keys:
            from skills_core._trust.signing import IndexVerifier

            require_signatures(backend, IndexVerifier(policy.keys, sequences=sequences))

    async def ready(self) -> None:
        """Read the lock file on first use; a ``LockFileError`` when it is unreadable or no lock."""
        if self._lock_file is not None:
            self.lock = await asyncio.to_thread(SkillLock.read, self._lock_file)
            self._lock_file = None

    async def learn(self, listing: Sequence[ListedDocument]) -> None:
        """Learn the content digest of each listed skill whose provenance gives none.

        Only with approvals; a skill's files are read again only when its file list changed.
        An unreadable skill stays unapproved.
        """
        provenance = self._provenance
        if provenance is None or self.policy.approvals is None:
            return
        learned: dict[str, tuple[tuple[FileEntry, ...], str]] = {}
        for item in listing:
            found = provenance(item.name)
            if found is None or found.content is not None:
                continue
            with contextlib.suppress(StorageError):
                files = tuple(await self._backend.files(item.name))
                known = self._contents.get(item.name)
                digest = known[1] if known and known[0] == files else None
                learned[item.name] = files, digest or await skill_digest(self._backend, item.name)
        self._contents = learned

    def withheld(self, folder: str) -> Mapping[str, str]:
        """The frontmatter keys the skill in ``folder`` withholds, each with the reason."""
        provenance = self._provenance(folder) if self._provenance is not None else None
        if provenance is None:
            return _NOTHING
        approvals = self.policy.approvals
        content = provenance.content or self._contents.get(folder, ((), None))[1]
        found = approvals.granted(content) if approvals is not None and content else None
        return withheld_fields(provenance, frozenset(found.given if found else ()))
