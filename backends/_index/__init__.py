"""The agentskills.io well-known skills index, read over HTTP or from any store.

:mod:`~backends._index.document` (the index's JSON, read and written),
:mod:`~backends._index.reader` (the backend, each new index checked by a verifier,
:mod:`skills_core._trust.signing`'s, before it is used; a skill's artifact; the store and HTTP
transports) and :mod:`~backends._index.http` (:class:`~backends._index.http.HttpIndexBackend`).
"""
