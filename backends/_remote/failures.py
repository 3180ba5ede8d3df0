"""How a remote call fails: foreign errors translated once, one retry layer, one deadline.

The one place that knows s3fs's, gcsfs's, aiohttp's, requests' and botocore's exceptions:
:func:`is_transient` (worth retrying), :func:`retrying` (the one retry layer: the clients' own
are off, except GCS's, for which this one is off), :func:`raise_translated` (into
:mod:`backends._errors`, the cause kept unless it holds a credential), :class:`Deadline`.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar
from urllib.parse import urlsplit

from backends._errors import StorageError
from backends._local_files import NotRegularFileError, file_kind
from backends._remote.urls import last_link

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0  # seconds one remote operation may take by default, retries included

NO_AWS_CREDENTIALS = (
    "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, "
    "or FSSPEC_S3_ANON=true for a public bucket"
)

_SECONDS_PER_BYTE = 1 / (1024 * 1024)
_SECRET_WORDS = ("key", "secret", "token", "password", "credential", "auth")
_MIN_SECRET_LENGTH = 8
_TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_TRANSIENT_CODES = frozenset(
    {"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "InternalError"}
)
_TRANSIENT_CLASSES = (
    ("botocore.exceptions", "HTTPClientError"),
    ("botocore.exceptions", "ConnectionError"),
    ("aiohttp", "ClientConnectionError"),
    ("aiohttp", "ClientPayloadError"),
    ("requests.exceptions", "ConnectionError"),
    ("requests.exceptions", "Timeout"),
    ("requests.exceptions", "ChunkedEncodingError"),
    ("http.client", "IncompleteRead"),
)
_MAX_MESSAGE = 300


class Redactor:
    """Hides credentials (strings of 8 characters or more) in messages, locations, logs."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {secret for secret in secrets if len(secret) >= _MIN_SECRET_LENGTH}
        self._secrets = tuple(sorted(unique, key=len, reverse=True))

    @classmethod
    def for_source(cls, url: str, options: Mapping[str, Any]) -> Redactor:
        """Collect the secrets of one source: credential-like options and a URL password."""
        secrets = list(_secret_values(options))
        password = _url_password(url)
        if password:
            secrets.append(password)
        return cls(secrets)

    def __call__(self, text: str) -> str:
        """Return ``text`` with every secret replaced by ``***``."""
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def url(self, url: str) -> str:
        """A URL fit for messages: its password (``https://user:pw@host``) replaced."""
        password = _url_password(url)
        return self(url.replace(f":{password}@", ":***@", 1) if password else url)

    def leaks(self, exc: BaseException) -> bool:
        """True when the text of ``exc`` or of any exception chained to it holds a secret."""
        return any(self(str(error)) != str(error) for error in _chain(exc))


class IncompleteReadError(StorageError):
    """A read gave more or fewer bytes than listed or asked for; retried, never cached."""

    @classmethod
    def check(
        cls, data: bytes, expected: int | None, *, location: str, ranged: bool = False
    ) -> bytes:
        """Return ``data`` when it has the ``expected`` length (a range's when ``ranged``)."""
        got = len(data)
        if expected is None or got == expected:
            return data
        source = "asked for" if ranged else "the listing gave"
        if got < expected:
            why = "cut short in transit, or changed since the listing"
            message = f"got {got} of the {expected} bytes {source} ({why})"
        else:
            why = "the store ignored the byte range" if ranged else "changed since the listing"
            message = f"got {got} bytes, more than the {expected} {source} ({why})"
        raise cls(message, location=location)


class RangesIgnoredError(StorageError):
    """An HTTP server answered a ranged GET with the whole file (unread, never retried)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often to retry a transient failure (capped backoff, full jitter).

    ``attempts`` in all (1: no retry); waits from ``base_delay`` seconds, doubling to ``max_delay``.
    """

    attempts: int = 4
    base_delay: float = 0.2
    max_delay: float = 5.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")

    def delay(self, failures: int) -> float:
        """Seconds to wait after ``failures`` failed attempts (full jitter)."""
        ceiling = min(self.max_delay, self.base_delay * 2 ** (failures - 1))
        return random.uniform(0, ceiling)


NO_RETRY = RetryPolicy(attempts=1)


async def retrying(policy: RetryPolicy, operation: Callable[[], Awaitable[T]]) -> T:
    """Run ``operation`` until it succeeds, fails permanently, or runs out of attempts."""
    failures = 0
    while True:
        try:
            return await operation()
        except Exception as exc:
            failures += 1
            if failures >= policy.attempts or not is_transient(exc):
                raise
            await asyncio.sleep(policy.delay(failures))


class Deadline:
    """The time limit of every operation of one backend, and a pause after a stall.

    Each operation gets ``timeout`` seconds, retries included, plus a second per MiB it
    transfers; after one times out, every operation fails at once for ``timeout`` seconds.
    ``None`` leaves only the store's own timeouts.
    """

    def __init__(self, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.timeout = timeout
        self._stalled_at: float | None = None

    def seconds(self, size: int | None = None) -> float | None:
        """The time limit of one operation that transfers ``size`` bytes."""
        if self.timeout is None:
            return None
        return self.timeout + (size or 0) * _SECONDS_PER_BYTE

    @asynccontextmanager
    async def bounded(self, *, location: str, size: int | None = None) -> AsyncIterator[None]:
        """Run the body within the time limit (StorageError when out of time or stalled)."""
        seconds = self.seconds(size)
        if seconds is None:
            yield
            return
        self._refuse_while_stalled(location)
        try:
            async with asyncio.timeout(seconds) as scope:
                yield
        except TimeoutError as exc:
            if not scope.expired():
                raise  # a timeout of the store's own client: the retry layer judged it
            self._stalled_at = time.monotonic()
            raise StorageError(
                f"timed out: no complete answer within {seconds:g} s, retries included "
                "(the backend's timeout)",
                location=location,
            ) from exc

    def _refuse_while_stalled(self, location: str) -> None:
        if self._stalled_at is None or self.timeout is None:
            return
        since = time.monotonic() - self._stalled_at
        if since < self.timeout:
            raise StorageError(
                f"not tried: the store timed out {since:.1f} s ago; it is tried again "
                f"{self.timeout:g} s after a timeout",
                location=location,
            )
        self._stalled_at = None


def is_transient(exc: BaseException) -> bool:
    """True for failures that may pass on a retry: 5xx, throttling, resets, timeouts."""
    return any(_is_transient_one(error) for error in _chain(exc))


def raise_translated(
    exc: Exception,
    *,
    location: str,
    redact: Redactor,
    missing: type[StorageError] = StorageError,
) -> NoReturn:
    """Raise ``exc`` as a :class:`StorageError` (``missing`` for a not-found), redacted."""
    error: StorageError
    if isinstance(exc, StorageError):
        raise exc
    if is_transient(exc):  # before not-found: fsspec's HTTP reports a 500 as FileNotFoundError
        error = StorageError(f"unavailable, gave up: {describe(exc, redact)}", location=location)
    elif isinstance(exc, FileNotFoundError):
        error = missing("not found", location=location)
    elif isinstance(exc, NotRegularFileError):  # a local FIFO, device, socket or directory
        error = StorageError(
            f"{file_kind(exc.mode)}, not a regular file; not read", location=location
        )
    elif isinstance(exc, PermissionError):
        error = StorageError("access denied (check credentials and permissions)", location=location)
    elif any(type(error).__name__ == "NoCredentialsError" for error in _chain(exc)):  # botocore's
        error = StorageError(NO_AWS_CREDENTIALS, location=location)
    else:
        error = StorageError(describe(exc, redact), location=location)
    if redact.leaks(exc):
        raise error from None
    raise error from exc


def describe(exc: BaseException, redact: Redactor) -> str:
    """A one-line, redacted account of ``exc``'s root cause (s3fs wraps botocore's)."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    text = redact(" ".join(str(exc).split()))
    if len(text) > _MAX_MESSAGE:
        text = text[: _MAX_MESSAGE - 3] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_transient_one(error: BaseException) -> bool:
    if isinstance(error, ConnectionError | TimeoutError | IncompleteReadError):
        return True
    if isinstance(error, _transient_classes()):
        return True
    status, code = _http_status(error)
    return status in _TRANSIENT_STATUS or code in _TRANSIENT_CODES


def _http_status(error: BaseException) -> tuple[int | None, str | None]:
    response = getattr(error, "response", None)
    if isinstance(response, Mapping):  # botocore ClientError
        metadata = response.get("ResponseMetadata") or {}
        code = (response.get("Error") or {}).get("Code")
        return metadata.get("HTTPStatusCode"), code if isinstance(code, str) else None
    status = getattr(response, "status_code", None)  # requests HTTPError
    if isinstance(status, int):
        return status, None
    for attribute in ("status", "code"):  # aiohttp ClientResponseError, gcsfs HttpError
        value = getattr(error, attribute, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value, None
    return None, None


@functools.cache
def _transient_classes() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = []
    for module_name, class_name in _TRANSIENT_CLASSES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        cls = getattr(module, class_name, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


def _secret_values(options: Mapping[str, Any]) -> Iterator[str]:
    for name, value in options.items():
        if isinstance(value, Mapping):
            yield from _secret_values(value)
        elif isinstance(value, str) and any(word in name.lower() for word in _SECRET_WORDS):
            yield value


def _url_password(url: str) -> str | None:
    """The password in ``scheme://user:password@host``; GitHub's ``org:repo@`` is not one."""
    if url.startswith("github:"):
        return None
    try:
        parts = urlsplit(last_link(url))
    except ValueError:
        return None
    return parts.password
