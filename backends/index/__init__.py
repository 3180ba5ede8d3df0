"""The agentskills.io well-known skills index, read over HTTP or from any store.

:mod:`~backends.index.document` (the index's JSON, read and written),
:mod:`~backends.index.reader` (the backend over any transport, a skill's artifact, the store
transport), :mod:`~backends.index.http` (:class:`~backends.index.http.HttpIndexBackend`),
and :mod:`~backends.index.verification` (each new index checked by a verifier,
:mod:`skills_core.trust.signing`'s, before it is used).
"""
