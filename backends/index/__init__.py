"""The agentskills.io well-known skills index, read over HTTP or from any store.

Modules, one concern each: :mod:`~backends.index.document` (the index's JSON, read and
written), :mod:`~backends.index.artifact` (a skill's verified, screened artifact),
:mod:`~backends.index.reader` (the backend over any transport), :mod:`~backends.index.http`
(:class:`~backends.index.http.HttpIndexBackend`: HTTP(S) with conditional GETs),
:mod:`~backends.index.redirects` (redirects followed hop by hop, credentials kept on the
index's origin),
:mod:`~backends.index.store` (any fsspec store, used by ``FsspecBackend`` when a folder holds
a published index) and :mod:`~backends.index.verification` (each new index checked by a
verifier, :mod:`skills_core.trust.signing`'s, before it is used). ``from backends import
HttpIndexBackend`` imports it on first use.
"""
