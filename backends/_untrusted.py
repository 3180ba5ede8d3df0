"""UntrustedFolder: a local skills folder a cloned repository brought.

Its skills report :data:`~backends.capabilities.PROJECT`; a catalog's trust policy grants them
nothing until the user approves their content (:mod:`skills_core._trust.policy`).
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
