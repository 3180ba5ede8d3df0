"""Trust: what a catalog may serve, and what its skills may do.

:mod:`~skills_core.trust.policy` holds :class:`~skills_core.trust.policy.TrustPolicy`, the one
object a catalog is given (a lock, signing keys, the user's approvals) and the decisions it
makes from the provenance backends report; :mod:`~skills_core.trust.lock` pins skills by
content, :mod:`~skills_core.trust.approvals` keeps the user's approvals and
:mod:`~skills_core.trust.signing` signs and verifies published indexes. The package sits below
the catalog: it never imports it.
"""
