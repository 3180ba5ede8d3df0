"""HttpIndexBackend: the skills a site publishes at ``/.well-known/agent-skills/index.json``.

A refresh is one conditional GET (``If-None-Match``, else ``If-Modified-Since``); bodies are
read no further than their limit. Credentials go to the index's own origin only: redirects are
followed one hop at a time, and the caller's headers go with a hop only while every hop so far
stayed on that origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit, urlunsplit

from backends._errors import ResourceNotFoundError, StorageError, UnsupportedSourceError
from backends._index.document import INDEX_PATH, SIGNATURE_SUFFIX
from backends._index.reader import Fetched, IndexBackend
from backends._limits import DEFAULT_LIMITS, Limits, too_large
from backends._remote.failures import DEFAULT_TIMEOUT, Deadline, Redactor, RetryPolicy
from backends._remote.filesystem import Reopening, check_available, default_retry, prepare
from backends._remote.urls import WEB, SourceSpec

_CHUNK = 64 * 1024


def index_url(url: str) -> str:
    """The index a URL names: itself when it ends in ``.json``, else its well-known index."""
    parts = urlsplit(url)
    if parts.path.endswith(".json"):
        return url
    path = f"{parts.path.rstrip('/')}/{INDEX_PATH}"
    return urlunsplit(parts._replace(path=path, fragment=""))


class HttpTransport:
    """Conditional GETs of an index at ``url`` (credentials removed), and GETs of its artifacts."""

    def __init__(
        self,
        url: str,
        options: Mapping[str, Any],
        *,
        credentials: Credentials,
        redact: Redactor,
        retry: RetryPolicy,
        deadline: Deadline,
    ) -> None:
        self._url = url
        self._credentials = credentials
        self._redact = redact
        self._remote = Reopening(
            url, options, location=self.location, redact=redact, retry=retry, deadline=deadline
        )

    @property
    def location(self) -> str:
        """The index's URL."""
        return self._redact.url(self._url)

    def resolve(self, url: str) -> tuple[str, str]:
        """The artifact's absolute http(s) URL, as the key and the location."""
        target = urljoin(self._url, url).split("#", 1)[0]
        if urlsplit(target).scheme not in WEB:
            raise StorageError(f"artifact URL {url!r} is not http(s)", location=self.location)
        return target, self._redact.url(target)

    async def fetch_index(self, validator: str | None, *, max_bytes: int) -> Fetched | None:
        """One GET, conditional on ``validator``; ``None`` when answered 304."""
        headers = {}
        kind, _, value = (validator or "").partition(":")
        if kind == "etag":
            headers["If-None-Match"] = value
        elif kind == "modified":
            headers["If-Modified-Since"] = value
        status, fetched = await self._get(
            self._url,
            headers,
            max_bytes,
            what="skills index",
            location=self.location,
            missing=ResourceNotFoundError,
        )
        return None if status == 304 else fetched

    async def fetch_artifact(self, key: str, *, location: str, max_bytes: int) -> Fetched:
        """One GET, with the credentials only when the artifact is on the index's origin."""
        return (await self._get(key, {}, max_bytes, what="artifact", location=location))[1]

    async def fetch_signature(self, *, max_bytes: int) -> bytes | None:
        """One GET of the index's URL plus ``.sig``; ``None`` when answered 404."""
        parts = urlsplit(self._url)
        url = urlunsplit(parts._replace(path=parts.path + SIGNATURE_SUFFIX))
        location = self._redact.url(url)
        try:
            _, fetched = await self._get(
                url,
                {},
                max_bytes,
                what="signature file",
                location=location,
                missing=ResourceNotFoundError,
            )
        except ResourceNotFoundError:
            return None
        return fetched.data

    async def aclose(self) -> None:
        """Close the HTTP session; a later request opens a new one."""
        await self._remote.aclose()

    async def _get(
        self,
        url: str,
        headers: Mapping[str, str],
        max_bytes: int,
        *,
        what: str,
        location: str,
        missing: type[StorageError] = StorageError,
    ) -> tuple[int, Fetched]:
        async def get(fs: Any) -> tuple[int, Fetched]:
            session = await fs.set_session()
            response = await get_following(
                session,
                url,
                headers=headers,
                credentials=self._credentials,
                options=fs.kwargs,
                location=location,
            )
            async with response:
                if response.status == 404:
                    raise FileNotFoundError(url)
                response.raise_for_status()
                declared = response.content_length
                if declared is not None and declared > max_bytes:
                    raise too_large(what, declared, max_bytes, location=location)
                body = bytearray()
                async for chunk in response.content.iter_chunked(_CHUNK):
                    body += chunk
                    if len(body) > max_bytes:
                        raise too_large(what, len(body), max_bytes, location=location)
                found = response.headers  # case-insensitive
                etag, modified = found.get("ETag"), found.get("Last-Modified")
                validator = f"etag:{etag}" if etag else f"modified:{modified}" if modified else None
                return response.status, Fetched(bytes(body), validator, found.get("Content-Type"))

        fs = await self._remote.get()
        return await fs.run(get, location=location, missing=missing)


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
        deadline = Deadline(timeout)
        redact = Redactor.for_source(url, {**storage_options, "headers": dict(headers or {})})
        target = index_url(url)
        scheme = urlsplit(target).scheme.lower()
        if scheme not in WEB:
            raise UnsupportedSourceError("not an http(s) URL", location=redact.url(url))
        check_available(SourceSpec(target, bundle=True), location=redact.url(target))
        target, options = prepare(target, storage_options, timeout=timeout)
        client = dict(options.get("client_kwargs") or {})
        origin_headers = {**client.pop("headers", {}), **(headers or {})}
        auth = options.pop("auth", client.pop("auth", None))  # an aiohttp.BasicAuth
        if auth is not None:
            origin_headers.setdefault("Authorization", auth.encode())
        options["client_kwargs"] = client
        credentials = Credentials(origin(target), origin_headers)
        transport = HttpTransport(
            target,
            options,
            credentials=credentials,
            redact=redact,
            retry=retry or default_retry(scheme),
            deadline=deadline,
        )
        super().__init__(transport, limits=limits)


MAX_REDIRECTS = 10  # aiohttp's own default

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    """A URL's origin: scheme, host and port (the scheme's default port when none is given)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


class Credentials(NamedTuple):
    """Headers the caller sends to one origin only."""

    origin: tuple[str, str, int | None]
    headers: Mapping[str, str]


async def get_following(
    session: Any,
    url: str,
    *,
    headers: Mapping[str, str],
    credentials: Credentials,
    options: Mapping[str, Any],
    location: str,
) -> Any:
    """The final response to a GET of ``url``; ``credentials`` go only while on their origin."""
    trusted = True
    for _ in range(MAX_REDIRECTS + 1):
        trusted = trusted and origin(url) == credentials.origin
        sent = {**headers, **credentials.headers} if trusted else dict(headers)
        response = await session.get(url, **{**options, "headers": sent, "allow_redirects": False})
        if response.status not in _REDIRECTS:
            return response
        target = response.headers.get("Location")
        response.release()
        if not target:
            raise StorageError(f"redirect {response.status} without a Location", location=location)
        url = urljoin(url, target).split("#", 1)[0]
        if urlsplit(url).scheme.lower() not in WEB:
            raise StorageError(f"redirected to a non-http(s) URL {target!r}", location=location)
    raise StorageError(f"more than {MAX_REDIRECTS} redirects", location=location)
