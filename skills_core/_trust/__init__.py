"""Trust: what a catalog may serve, and what its skills may do.

:mod:`~skills_core._trust.policy` holds :class:`~skills_core._trust.policy.TrustPolicy`, the one
object a catalog is given (a lock, signing keys, the user's approvals) and the decisions it
makes from the provenance backends report; :mod:`~skills_core._trust.lock` pins skills by
content, :mod:`~skills_core._trust.approvals` keeps the user's approvals and
:mod:`~skills_core._trust.signing` signs and verifies published indexes. The package sits below
the catalog: it never imports it.
"""
