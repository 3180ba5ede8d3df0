"""A fetched index checked before it is used: a trusted key's signature, then its sequence."""

from __future__ import annotations

import asyncio
from typing import Protocol

from backends._errors import LimitExceededError, SignatureError
from backends._index.document import Index, parse_index
from backends.capabilities import IndexVerifier

MAX_SIGNATURE_BYTES = 4096  # a real one is about 150 bytes


class SignatureSource(Protocol):
    """Where an index was read, and how its signature file is fetched."""

    @property
    def location(self) -> str:
        """The index's location."""

    async def fetch_signature(self, *, max_bytes: int) -> bytes | None:
        """The signature file's bytes, or ``None`` when there is none."""


async def verified_index(
    data: bytes, transport: SignatureSource, verifier: IndexVerifier | None
) -> Index:
    """``data`` parsed, once a trusted key's signature and sequence hold (with a verifier)."""
    location = transport.location
    if verifier is not None:
        try:
            signature = await transport.fetch_signature(max_bytes=MAX_SIGNATURE_BYTES)
        except LimitExceededError as exc:
            raise SignatureError(
                f"refused: the signature file is larger than {MAX_SIGNATURE_BYTES} bytes",
                location=location,
            ) from exc
        await asyncio.to_thread(verifier.check_signature, data, signature, location=location)
    index = await asyncio.to_thread(parse_index, data, location=location)
    if verifier is not None:
        await asyncio.to_thread(verifier.check_sequence, index.sequence, location=location)
    return index
