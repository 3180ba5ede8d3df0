"""UntrustedFolder: a local skills folder a cloned repository brought.

As agentskills.io's client guide advises for project-level skills, they are served but grant
nothing until the user approves their content. The folder only says where its skills come from
(:data:`~backends.capabilities.PROJECT`); a catalog's trust policy decides
(:mod:`skills_core._trust.policy`): their ``allowed-tools`` widen no tool use (they still
restrict) and their scripts do not run, until approved.
"""

from __future__ import annotations

from backends._local import LocalBackend
from backends.capabilities import PROJECT, Provenance

_PROJECT = Provenance(PROJECT)


class UntrustedFolder(LocalBackend):
    """A :class:`LocalBackend` whose skills report :data:`~backends.capabilities.PROJECT`."""

    def provenance(self, name: str) -> Provenance:
        """Every skill comes from the project."""
        del name
        return _PROJECT
