"""Content digests as the skills standards write them: ``sha256:`` and 64 lowercase hex digits."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Mapping
from typing import TypeGuard

from backends._base import Backend
from backends._limits import KIB
from backends._paths import skill_md_name

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")

INLINE_HASH_BYTES = 64 * KIB  # hashed on the loop (tens of microseconds); larger in a thread


def digest_of(data: bytes) -> str:
    """The digest of ``data``: ``sha256:`` and 64 lowercase hex digits."""
    return digest_text(hashlib.sha256(data).digest())


def digest_text(sha256: bytes) -> str:
    """A SHA-256 already computed (32 bytes) as a digest: ``sha256:`` and its hex."""
    return "sha256:" + sha256.hex()


async def digest_off_loop(data: bytes) -> str:
    """:func:`digest_of` for coroutines: over :data:`INLINE_HASH_BYTES`, in a worker thread."""
    if len(data) <= INLINE_HASH_BYTES:
        return digest_of(data)
    return await asyncio.to_thread(digest_of, data)


def is_digest(value: object) -> TypeGuard[str]:
    """True when ``value`` is a well-formed ``sha256:`` digest."""
    return isinstance(value, str) and _DIGEST.match(value) is not None


def files_digest(digests: Mapping[str, str]) -> str:
    """One digest for a set of files: of the compact JSON of its sorted ``[path, digest]`` list."""
    pairs = sorted(digests.items())
    return digest_of(json.dumps(pairs, separators=(",", ":")).encode())


async def skill_digest(backend: Backend, name: str, *, skill_md: str | None = None) -> str:
    """The :func:`files_digest` of skill ``name``; known digests (``skill_md``, MCP's) are used."""
    entries = await backend.files(name)
    known = {} if skill_md is None else {skill_md_name([e.path for e in entries]): skill_md}
    digests = {}
    for entry in entries:
        listed = entry.fingerprint if is_digest(entry.fingerprint) else None
        digests[entry.path] = (
            known.get(entry.path)
            or listed
            or await digest_off_loop(await backend.read(name, entry.path))
        )
    return files_digest(digests)
