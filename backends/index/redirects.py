"""GETs that follow redirects one hop at a time, keeping credentials on the index's origin.

aiohttp, left to follow redirects, drops only ``Authorization`` and ``Cookie`` when one leaves
the origin: an ``X-Api-Key`` or ``Private-Token`` header went on to whatever host a redirect
named. Here every hop is a request of its own; the caller's headers go with a hop
only while the chain has stayed on the index's origin (scheme, host and port), and never again
once it has left it, even when a later hop comes back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

from backends.errors import StorageError
from backends.remote.urls import WEB

MAX_REDIRECTS = 10
"""Hops followed before a request fails (aiohttp's own default)."""

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
    """The final response to a GET of ``url`` (an aiohttp response: the caller closes it).

    Args:
        session: The aiohttp session.
        url: Where to start.
        headers: Sent on every hop (conditional headers).
        credentials: Sent on a hop only while every hop so far was on their origin.
        options: Other aiohttp request options.
        location: Where the request is from, for messages.

    Raises:
        StorageError: A redirect named no location or a non-http(s) URL, or more than
            ``MAX_REDIRECTS`` redirects.
    """
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
