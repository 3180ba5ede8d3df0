"""Signed publications: an Ed25519 signature beside a well-known index, checked before serving.

Formats and refusals: docs/trust.md, "Signed publications". Needs ``cryptography``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
import time
from collections.abc import Sequence
from typing import Protocol

from backends._errors import MissingDependencyError, SignatureError, StorageError, install_command
from backends._index.document import SIGNATURE_SUFFIX
from backends._limits import MAX_KEY_FILE_BYTES
from backends._local_files import read_regular_file

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
except ImportError as exc:  # pragma: no cover - the extra is installed in tests
    raise MissingDependencyError(
        f"signed publications need the cryptography package: {install_command('sign')}"
    ) from exc

ALGORITHM = "ed25519"
_SIGNATURE_LENGTH = 64

TrustedKey = Ed25519PublicKey | bytes
"""A trusted key: a public key, or its PEM (``KEYFILE.pub``, as ``skillfs keygen`` writes it)."""


class SequenceMemory(Protocol):
    """The highest sequence accepted per index, kept across processes (blocking calls)."""

    def last_sequence(self, index: str) -> int | None:
        """The highest sequence accepted for ``index``, or ``None``."""

    def remember_sequence(self, index: str, sequence: int) -> None:
        """Note that ``sequence`` was accepted for ``index`` (a lower one never replaces it)."""


def new_key_pair() -> tuple[bytes, bytes]:
    """A new Ed25519 key pair as PEM: ``(private key, public key)``."""
    private = Ed25519PrivateKey.generate()
    return (
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
        private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
    )


def read_key_file(path: str | os.PathLike[str]) -> bytes:
    """A key file's PEM (blocking); a ``StorageError`` unless it is a readable regular file.

    At most ``MAX_KEY_FILE_BYTES`` are read.
    """
    try:
        return read_regular_file(path, MAX_KEY_FILE_BYTES, what="the key")
    except FileNotFoundError as exc:
        raise StorageError(f"cannot read the key: {exc.strerror}", location=str(path)) from exc


def key_id(key: Ed25519PublicKey) -> str:
    """``ed25519:`` and the first 16 hex digits of the SHA-256 of the raw public key."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return f"{ALGORITHM}:{hashlib.sha256(raw).hexdigest()[:16]}"


def public_key(key: TrustedKey, *, location: str | None = None) -> Ed25519PublicKey:
    """A trusted key as a public key; a ``SignatureError`` unless it is an Ed25519 one in PEM."""
    if isinstance(key, Ed25519PublicKey):
        return key
    try:
        loaded = serialization.load_pem_public_key(key)
    except ValueError as exc:
        reason = "not a PEM public key"
        if b"PRIVATE KEY-----" in key:
            reason = "a private key, not a public one: trust its .pub file and keep this one secret"
        raise SignatureError(reason, location=location) from exc
    if not isinstance(loaded, Ed25519PublicKey):
        raise SignatureError("not an Ed25519 public key", location=location)
    return loaded


def private_key(pem: bytes, *, location: str | None = None) -> Ed25519PrivateKey:
    """An unencrypted Ed25519 private key from its PEM (PKCS#8); else a ``SignatureError``."""
    try:
        loaded = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise SignatureError("not an unencrypted PEM private key", location=location) from exc
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SignatureError("not an Ed25519 private key", location=location)
    return loaded


def new_sequence() -> int:
    """The sequence of a publication built now: microseconds since the epoch."""
    return time.time_ns() // 1000


def signature_file(index: bytes, key: Ed25519PrivateKey) -> bytes:
    """The signature file of ``index``'s exact bytes, signed with ``key``."""
    signature = base64.b64encode(key.sign(index)).decode()
    document = {"algorithm": ALGORITHM, "key": key_id(key.public_key()), "signature": signature}
    return (json.dumps(document) + "\n").encode()


class IndexVerifier:
    """Checks an index against a signature by one of ``trusted_keys`` and the sequences seen.

    Without ``sequences``, the highest sequence per index is kept only in this verifier.

    Raises:
        ValueError: No key is given.
        SignatureError: A key is not an Ed25519 public key.
    """

    def __init__(
        self, trusted_keys: Sequence[TrustedKey], *, sequences: SequenceMemory | None = None
    ) -> None:
        if not trusted_keys:
            raise ValueError("trusted_keys is empty: give at least one key, or None")
        keys = (public_key(key) for key in trusted_keys)
        self._keys = {key_id(key): key for key in keys}
        self._sequences = sequences
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()

    def check_signature(self, index: bytes, signature: bytes | None, *, location: str) -> None:
        """Refuse ``index`` (a ``SignatureError``) unless a trusted key signed exactly its bytes."""
        where = location + SIGNATURE_SUFFIX
        if signature is None:
            raise SignatureError(
                f"refused: the index is not signed (no {where})", location=location
            )
        claimed, raw = _parsed(signature, location=where)
        key = self._keys.get(claimed)
        if key is None:
            trusted = ", ".join(sorted(self._keys))
            raise SignatureError(
                f"refused: the index is signed by {claimed}, which is not trusted "
                f"(trusted: {trusted})",
                location=location,
            )
        try:
            key.verify(raw, index)
        except InvalidSignature:
            raise SignatureError(
                f"refused: the signature by {claimed} does not match the index's bytes "
                "(changed after signing, or tampered with)",
                location=location,
            ) from None

    def check_sequence(self, sequence: int | None, *, location: str) -> None:
        """Accept ``sequence`` for ``location``'s index (blocking); absent or older: refused."""
        if sequence is None:
            raise SignatureError(
                "refused: the signed index carries no skillfs-sequence", location=location
            )
        with self._lock:
            stored = self._sequences.last_sequence(location) if self._sequences else None
            last = max(self._seen.get(location, -1), -1 if stored is None else stored)
            if sequence < last:
                raise SignatureError(
                    f"refused: the index's sequence {sequence} is lower than {last}, already "
                    "accepted: a replayed older publication (rollback)",
                    location=location,
                )
            self._seen[location] = sequence
            if self._sequences is not None and sequence != stored:
                self._sequences.remember_sequence(location, sequence)


def _parsed(signature: bytes, *, location: str) -> tuple[str, bytes]:
    """The key id and the raw signature a signature file holds, or a ``SignatureError``."""
    try:
        document = json.loads(signature)
        claimed, encoded = document["key"], document["signature"]
        if document.get("algorithm") != ALGORITHM:
            raise ValueError(f"algorithm {document.get('algorithm')!r}, not {ALGORITHM!r}")
        if not isinstance(claimed, str) or not isinstance(encoded, str):
            raise TypeError("'key' and 'signature' must be strings")
        raw = base64.b64decode(encoded, validate=True)
    except (ValueError, TypeError, KeyError) as exc:
        reason = str(exc) or type(exc).__name__
        raise SignatureError(
            f"refused: not a signature file ({reason})", location=location
        ) from exc
    if len(raw) != _SIGNATURE_LENGTH:
        raise SignatureError(
            f"refused: the signature is {len(raw)} bytes, not {_SIGNATURE_LENGTH} (truncated?)",
            location=location,
        )
    return claimed, raw
