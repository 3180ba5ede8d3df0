"""A fetched index checked before it is used: a trusted key's signature, then its sequence.

Only a backend given ``trusted_keys`` has a verifier; :mod:`backends.index.signing` (and with it
cryptography) is imported only then. Without one, an index is parsed and used as it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from backends.errors import LimitExceededError, SignatureError
from backends.index.document import Index, parse_index

if TYPE_CHECKING:
    from backends.index.reader import IndexTransport
    from backends.index.signing import IndexVerifier, SequenceMemory, TrustedKey


def index_verifier(
    trusted_keys: Sequence[TrustedKey] | None, sequences: SequenceMemory | None
) -> IndexVerifier | None:
    """The verifier for a backend given ``trusted_keys`` (none without them).

    Raises:
        SignatureError: A key is not an Ed25519 public key.
        MissingDependencyError: cryptography is not installed (``skillfs[sign]``).
    """
    if trusted_keys is None:
        return None
    from backends.index.signing import IndexVerifier

    return IndexVerifier(trusted_keys, sequences=sequences)


async def verified_index(
    data: bytes, transport: IndexTransport, verifier: IndexVerifier | None
) -> Index:
    """``data`` parsed, once a trusted key's signature and sequence hold (with a verifier)."""
    location = transport.location
    if verifier is not None:
        await _check_signature(data, transport, verifier)
    index = await asyncio.to_thread(parse_index, data, location=location)
    if verifier is not None:
        await asyncio.to_thread(verifier.check_sequence, index.sequence, location=location)
    return index


async def _check_signature(data: bytes, transport: IndexTransport, verifier: IndexVerifier) -> None:
    """Refuse ``data`` unless a trusted key signed exactly these bytes."""
    from backends.index.signing import MAX_SIGNATURE_BYTES

    location = transport.location
    try:
        signature = await transport.fetch_signature(max_bytes=MAX_SIGNATURE_BYTES)
    except LimitExceededError as exc:
        raise SignatureError(
            f"refused: the signature file is larger than {MAX_SIGNATURE_BYTES} bytes",
            location=location,
        ) from exc
    await asyncio.to_thread(verifier.check_signature, data, signature, location=location)
