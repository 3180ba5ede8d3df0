"""Foreign errors from fsspec filesystems, classified and translated once into storage errors.

s3fs, gcsfs, aiohttp, requests and botocore each raise their own exceptions. This module is the
one place that knows them: :func:`is_transient` decides what is worth retrying, and
:func:`raise_translated` turns anything else into the :mod:`backends.errors` tree, most specific
first, keeping the cause unless its text would reveal a credential (:class:`Redactor`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NoReturn
from urllib.parse import urlsplit

from backends.errors import StorageError
from backends.local_files import NotRegularFileError, file_kind
from backends.remote.urls import last_link

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
    """Hides credentials in text meant for people: error messages, locations, logs.

    Args:
        secrets: The strings to hide; short ones (under 8 characters) are not credentials.
    """

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
    """A read gave more or fewer bytes than the listing said the file holds, or than were asked.

    Either the response was cut short in transit (a short body whose ``Content-Length`` and
    ETag agree with it passes every other check) or the file changed since the listing. It is
    retried like a dropped connection, and never cached.
    """

    @classmethod
    def check(
        cls, data: bytes, expected: int | None, *, location: str, ranged: bool = False
    ) -> bytes:
        """Return ``data`` when it has the ``expected`` length (or none is known).

        Args:
            data: What the read gave.
            expected: The length it should have.
            location: Where it was read, for the message.
            ranged: ``expected`` is the length of a range asked for, not the listed size.

        Raises:
            IncompleteReadError: It does not.
        """
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
    """An HTTP server answered a ranged GET with the whole file, which the caller cannot use.

    Its body is not read. Not retried: the server answers every ranged request that way.
    """


NO_AWS_CREDENTIALS = (
    "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, "
    "or FSSPEC_S3_ANON=true for a public bucket"
)


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
    """Raise ``exc`` as a :class:`StorageError` (``missing`` for a not-found).

    The cause is kept with ``from`` unless its text holds a credential; then it is dropped so
    no traceback or log line can show it.
    """
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
    """A one-line, redacted account of ``exc``: the type and message of its root cause.

    The root is the most specific account: s3fs turns botocore's ``ClientError`` ("An error
    occurred (SlowDown) when calling the GetObject operation: ...") into a bare ``OSError``.
    """
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
    """The HTTP status (and service error code) an exception carries, if any."""
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
    """Connection-level exception classes of whichever HTTP stacks are installed."""
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
