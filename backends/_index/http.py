"""HttpIndexBackend: the skills a site publishes at ``/.well-known/agent-skills/index.json``.

A refresh is one conditional GET (``If-None-Match``, else ``If-Modified-Since``); bodies are
read no further than their limit; credentials go to the index's own origin only
(:class:`~backends._index.reader.HttpTransport`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from backends._errors import UnsupportedSourceError
from backends._index.document import INDEX_PATH
from backends._index.reader import HttpTransport, IndexBackend
from backends._limits import DEFAULT_LIMITS, Limits
from backends._remote.failures import DEFAULT_TIMEOUT, Redactor, RetryPolicy
from backends._remote.filesystem import Reopening
from backends._remote.urls import WEB, SourceSpec


def index_url(url: str) -> str:
    """The index a URL names: itself when it ends in ``.json``, else its well-known index."""
    parts = urlsplit(url)
    if parts.path.endswith(".json"):
        return url
    path = f"{parts.path.rstrip('/')}/{INDEX_PATH}"
    return urlunsplit(parts._replace(path=path, fragment=""))


class HttpIndexBackend(IndexBackend):
    """The skills a site lists in its well-known index, read over HTTP(S).

    Args:
        url: The site publishing the index (its well-known ``index.json`` is read), or the
            URL of an index (ending in ``.json``).
        headers: HTTP headers for the index's origin only.
        limits, retry, timeout: As for :class:`~backends._fsspec_backend.StoreBackend`.
        **storage_options: For fsspec's HTTP filesystem; its headers and ``auth`` (like a
            top-level ``auth=``) go to the index's origin only.

    Raises:
        UnsupportedSourceError: The URL is not http(s).
        MissingDependencyError: aiohttp is not installed (``skillfs[http]``).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        retry: RetryPolicy | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        **storage_options: Any,
    ) -> None:
        redact = Redactor.for_source(url, {**storage_options, "headers": dict(headers or {})})
        target = index_url(url)
        if urlsplit(target).scheme.lower() not in WEB:
            raise UnsupportedSourceError("not an http(s) URL", location=redact.url(url))
        remote = Reopening(
            SourceSpec(target, bundle=True),
            storage_options,
            redact=redact,
            location=redact.url(target),
            retry=retry,
            timeout=timeout,
        )
        super().__init__(HttpTransport(remote, headers or {}, redact), limits=limits)
